package main

import (
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
)

// docs/reference.md, "Decisions".
func decisions(site config.Site, req *http.Request) error {
	m, err := agentready.New(site,
		agentready.WithOnDecision(func(d enforce.Decision) {
			if d.Outcome != enforce.Pass { // Pass: a browser
				slog.Info("agent", "outcome", d.Outcome, "status", d.Status, "agent", d.Agent,
					"capability", d.Capability, "rule", d.Rule, "limit", d.Limit)
			}
		}),
		agentready.WithAuthenticator(func(r *http.Request, c *config.Capability, token string) error {
			return tokens.Check(r.Context(), token) // your check
		}),
	)
	if err != nil {
		log.Fatal(err)
	}
	d := m.Explain(req) // what would happen, without serving or consuming tokens
	fmt.Println(d.Outcome)
	return nil
}

// docs/declaration.md, "Loading a file in Go".
func declarationFile() *agentready.Middleware {
	site, lines, err := config.LoadSite("site.yaml") // unknown keys and wrong types: errors with lines
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(site)
	if err != nil {
		log.Fatalf("site.yaml: %v", lines.Locate(err)) // each problem at the line of its field
	}
	return m
}
