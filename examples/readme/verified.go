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
