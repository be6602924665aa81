package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// echoPaths are the paths of docs/enforcement.md's canonical-pass table
// that none of the upstream apps' routes takes: each app runs its echo
// handler for them (on the path as it routes it), which answers as its
// other handlers do, its JSON adding "target", the request-target as the
// app received it, as raw as the framework exposes it (the apps' files
// say what they read). The table's one other row, /%61pi/search?q=tent,
// runs the product-search capability's handler.
var echoPaths = regexp.MustCompile(`^/(p|u|wiki)/|^/(s|cart)(;|$)`)

// TestProxyUpstreamCanonicalTables runs docs/enforcement.md's two tables
// through serve in front of each real app (upstreamApps), as
// TestServeCanonicalTargets does in front of a recording Go upstream: a
// target of canonical-pass reaches the app, which runs its echo handler
// (or the capability's, for /api/search) and received the table's second
// column; a target of canonical-refuse is answered 400 by serve, naming
// its fault, and the app runs nothing. Every response is also checked
// against the upstream tests' invariant (ledger.check).
func TestProxyUpstreamCanonicalTables(t *testing.T) {
	pass := testtools.DocTable(t, "../../docs/enforcement.md", "canonical-pass")
	refuse := testtools.DocTable(t, "../../docs/enforcement.md", "canonical-refuse")
	for _, app := range upstreamApps {
		t.Run(app.name, func(t *testing.T) {
			f := startFront(t, app, nil)
			for _, row := range pass {
				sent, want := row[0], row[1]
				w := f.send(t, newClient(claudeBot, false), wireRequest{method: "GET", target: sent})
				wantHandler := "echo GET"
				if p, _, _ := strings.Cut(want, "?"); !echoPaths.MatchString(p) {
					wantHandler = "product-search GET" // the table's capability row
				}
				switch {
				case w.status != http.StatusOK || w.handler != wantHandler:
					t.Errorf("pass %s: %d, the app ran %q, want 200 from %q: %s", sent, w.status, w.handler, wantHandler, excerpt(w.body))
				case wantHandler == "echo GET" && w.echo.Target != want:
					t.Errorf("pass %s: the app received %q, want %q", sent, w.echo.Target, want)
				}
			}
			for _, row := range refuse {
				sent, fault := row[0], row[1]
				w := f.send(t, newClient(claudeBot, false), wireRequest{method: "GET", target: sent})
				if w.status != http.StatusBadRequest || w.handler != "" {
					t.Errorf("refuse %s: %d, the app ran %q, want serve's 400: %s", sent, w.status, w.handler, excerpt(w.body))
					continue
				}
				if _, err := url.ParseRequestURI(sent); err != nil {
					continue // net/http's server refuses it before serve's handler
				}
				var prob struct{ Fault, Part string }
				if err := json.Unmarshal(w.body, &prob); err != nil || prob.Fault != fault || !strings.Contains(sent, prob.Part) {
					t.Errorf("refuse %s: %s, want serve's problem with fault %q", sent, w.body, fault)
				}
			}
		})
	}
}

// excerpt is b's start, for a message (a server's error page can be long).
func excerpt(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
