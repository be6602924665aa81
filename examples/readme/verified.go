package main

import (
	"context"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/verify"
)

// docs/verified-agents.md.
func verifiedAgents(ctx context.Context, site config.Site, client redis.UniversalClient) {
	site.Agents = append(site.Agents,
		// Sources from the known-agent data: OpenAI's published ranges.
		config.AgentPolicy{Name: "GPTBot", RateLimit: config.PerMinute(600),
			Verify: config.Verification{Required: true}},
		// Only a Web Bot Auth signature by a key of this JWK Set.
		config.AgentPolicy{Name: "claude", RateLimit: config.PerMinute(200),
			Verify: config.Verification{Required: true,
				Methods:         []string{config.VerifySignature},
				SignatureAgents: []string{"https://agent.example/keys/jwks.json"}}},
	)
	replays, err := redisstore.NewReplayCache(client) // replicas refuse each other's replays
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithVerification(verify.Options{Replays: replays}))
	if err != nil {
		log.Fatal(err)
	}
	go m.Run(ctx) // loads and refreshes the range lists and key directories; claims it cannot check yet are served under "*"
}

// docs/verified-agents.md, "Grades: proven, claimed, anonymous".
func gradedAgents(ctx context.Context, site config.Site) {
	site.Agents = []config.AgentPolicy{
		// Anonymous and merely claimed clients: 30 a minute, search only.
		// An agent the site does not declare whose operator is proven
		// (a trusted signature, the known-agent data's ranges): 120.
		{Name: "*", RateLimit: config.PerMinute(30), Capabilities: []string{"product-search"},
			Proven: &config.Grant{RateLimit: config.PerMinute(120)}},
		// GPTBot proven by OpenAI's ranges: 600 a minute and the store;
		// anyone merely claiming GPTBot: what "*" gets, in its bucket.
		{Name: "GPTBot", RateLimit: config.PerMinute(600),
			Verify: config.Verification{Required: true, FallBack: true}},
		// An agent signing with its own key directory: proven, 100 a
		// minute and its card's purpose; claimed, 10 a minute.
		{Name: "ExampleBot", RateLimit: config.PerMinute(10),
			Proven: &config.Grant{RateLimit: config.PerMinute(100)},
			Verify: config.Verification{SignatureAgents: []string{"https://bot.example"},
				Card: "https://bot.example/card.json"}},
	}
	site.Usage = config.Usage{Train: config.Denied, Enforce: true} // held to the proven purpose first
	site.Access.LinkPreviews = true                                // Slackbot, Discordbot, feed readers: served as browsers
	m, err := agentready.New(site, agentready.WithVerification(verify.Options{}))
	if err != nil {
		log.Fatal(err)
	}
	go m.Run(ctx)
}
