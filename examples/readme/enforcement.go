package main

import (
	"context"
	"errors"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/verify"
)

// docs/enforcement.md, "Auth: hmac".
func signedRequests(site config.Site, partnerSecret []byte) (*agentready.Middleware, error) {
	return agentready.New(site, agentready.WithRequestSignatures(
		func(ctx context.Context, keyID string) (verify.RequestKey, error) {
			if keyID != "partner-1" {
				return verify.RequestKey{}, errors.New("unknown key")
			}
			return verify.RequestKey{Algorithm: "hmac-sha256", Secret: partnerSecret}, nil
		}))
}

// docs/usage.md, "Usage preferences".
func usagePreferences(site config.Site) (*agentready.Middleware, error) {
	site.Usage = config.Usage{
		Train:   config.Denied,  // aipref train-ai=n, Content-Signal ai-train=no
		Search:  config.Allowed, // search=y, search=yes
		Paths:   []config.PathUsage{{Path: "/blog/", Train: config.Allowed}},
		Enforce: true, // refuse the crawlers a preference denies
	}
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{RobotsTxt: true}))
	return m, err
}
