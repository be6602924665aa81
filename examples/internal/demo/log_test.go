package demo

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// TestLogStatus: every agent request is logged once, with the status its
// client got: the application's for a request let through (200, or the
// 404 it wrote), agentready's for a refusal, a Capability binding's
// included; a browser's request is not logged.
func TestLogStatus(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	m, err := agentready.New(config.Site{
		Name: "Shop", URL: "https://shop.example", Description: "Mugs",
		Capabilities: []config.Capability{{ID: "search", Description: "Search", Endpoint: "https://shop.example/api/search",
			Method: "GET", Protocol: config.ProtocolREST, Auth: config.Auth{Type: config.AuthBearerToken, TokenEndpoint: "https://shop.example/token"}}},
		Access: config.Access{Allow: []string{"/api/*"}, Disallow: []string{"/admin/"}},
		Agents: []config.AgentPolicy{{Name: "*"}, {Name: "GPTBot"}},
	}, agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		agentready.WithOnDecision(LogDecision(logger)), agentready.WithDecisionHeader(),
		agentready.WithAuthenticator(func(*http.Request, *config.Capability, string) error { return errors.New("no such token") }))
	if err != nil {
		t.Fatal(err)
	}
	ok := func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") }
	mux := http.NewServeMux()
	mux.Handle("GET /api/search", m.Capability("search")(Served(logger, http.HandlerFunc(ok))))
	mux.Handle("/missing", Served(logger, http.NotFoundHandler()))
	mux.Handle("/", Served(logger, http.HandlerFunc(ok)))
	h := m.Handler(mux)

	for _, c := range []struct {
		name, ua, path, auth string
		status               int
		logged               string // "" for no line
	}{
		{"allowed", "GPTBot/1.2", "/", "", 200, `msg="agent request" outcome=allow status=200 method=GET path=/ agent=GPTBot`},
		{"allowed, the application's 404", "GPTBot/1.2", "/missing", "", 404, `outcome=allow status=404 method=GET path=/missing`},
		{"disallowed", "GPTBot/1.2", "/admin/users", "", 403, `outcome=deny-path status=403 method=GET path=/admin/users agent=GPTBot`},
		{"refused by the binding", "curl/8.5.0", "/api/search", "Bearer nope", 401, `outcome=deny-auth status=401 method=GET path=/api/search agent=*`},
		{"a browser", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "/", "", 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			logs.Reset()
			r := httptest.NewRequest("GET", "https://shop.example"+c.path, nil)
			r.RemoteAddr = netip.MustParseAddrPort("192.0.2.1:1234").String()
			r.Header.Set("User-Agent", c.ua)
			if c.auth != "" {
				r.Header.Set("Authorization", c.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.status {
				t.Fatalf("status %d, want %d", w.Code, c.status)
			}
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if c.logged == "" {
				if logs.Len() != 0 {
					t.Fatalf("logged %q, want nothing", logs.String())
				}
				return
			}
			if len(lines) != 1 || !strings.Contains(lines[0], c.logged) {
				t.Fatalf("logged %q, want one line with %q", lines, c.logged)
			}
			if strings.Contains(lines[0], "status=0") {
				t.Errorf("logged %q: status=0", lines[0])
			}
		})
	}
}
