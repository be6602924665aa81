// Command readme compiles the Go excerpts of the README and of docs/: every
// Go block there that is not a whole program names, in its first line
// ("// cut from examples/readme/routers.go"), the file of this directory it
// is cut from, and stands in it line for line. TestREADMEGoBlocks
// (readme_test.go, beside it) checks that it does and builds the blocks
// that are whole programs. Running it serves nothing: it prints that the
// excerpts compiled.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

func main() {
	// The excerpts are here to be compiled; main only shows they link.
	_, _, _, _, _ = chiRouter, bindRoutes, decisions, redisLimits, withReport
	_, _ = sessions, checkout
	_, _, _, _, _, _ = verifiedAgents, gradedAgents, signedRequests, usagePreferences, declarationFile, withMetrics
	fmt.Println("the Go excerpts of the README and docs/ compile")
}

// What the excerpts leave to the site.

var search = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"items":[]}`)) })

var mcp = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })

// tokenChecker stands for the site's own token check (a token store, a
// JWT verifier). As a placeholder it accepts no token at all, so that an
// excerpt copied without replacing it refuses every credential rather than
// accepting any.
type tokenChecker struct{}

func (tokenChecker) Check(ctx context.Context, token string) error {
	return errors.New("tokens.Check is a placeholder: replace it with your own check")
}

var tokens tokenChecker

func acmeCeramics() config.Site { return fixtures.AcmeCeramics() }

func startPayment(sessionID string) string { return "https://example.com/pay/" + sessionID }
