package e2e_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/verify"
)

// An attacker's review of issue 35 (per-tool MCP enforcement): a hostile
// MCP server whose tools/list answers carry tricks, read by the official
// Go SDK's client through agentready; and clients that claim a browser's
// User-Agent. A test that fails names a hole; the six the review found
// (a lone CR, header keys in another case, a browser carrying a session,
// AuthForEveryClient without the tool's scopes, a token without sub) were
// closed after it, and these tests hold them closed.

const rv35Browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// rv35AllTools is a tools/list result listing every tool of the store,
// checkout and admin_reset among them, for the request id.
func rv35AllTools(id json.RawMessage) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[` +
		`{"name":"search_products","inputSchema":{"type":"object"}},` +
		`{"name":"checkout","inputSchema":{"type":"object"}},` +
		`{"name":"admin_reset","inputSchema":{"type":"object"}}]}}`
}

// rv35Hostile is an MCP server written by hand: it answers initialize and
// notifications as a server would, and tools/list with answer.
func rv35Hostile(answer func(w http.ResponseWriter, id json.RawMessage)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		switch {
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25",`+
				`"capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}`)
		case m.Method == "tools/list":
			answer(w, m.ID)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
		}
	})
}

// rv35ListThrough lists the tools GPTBot (granted search_products alone)
// is shown by the SDK's client through agentready in front of h; err is
// the client's error, if any.
func rv35ListThrough(t *testing.T, h http.Handler) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m := rvNew(t, mcpSite())
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(m.Handler(mux))
	t.Cleanup(ts.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
		HTTPClient: &http.Client{Transport: uaTransport{mcpGPT}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names, nil
}

func sse(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, c := range chunks {
		_, _ = io.WriteString(w, c)
		w.(http.Flusher).Flush()
	}
}

func TestReview35HostileListServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, id json.RawMessage)
	}{
		{"plain JSON (the control)", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, rv35AllTools(id))
		}},
		{"plain SSE (the control)", func(w http.ResponseWriter, id json.RawMessage) {
			sse(w, "event: message\ndata: "+rv35AllTools(id)+"\n\n")
		}},
		// The HTML standard ends a line at a lone CR; the SDK's client
		// (event.go, scanEventsLimited) ends lines at LF only and trims
		// the data value. agentready reads "data:" with an empty value
		// and a line that is no field of its; the SDK reads one data line
		// holding the whole answer.
		{"SSE: data, a lone CR, then the answer", func(w http.ResponseWriter, id json.RawMessage) {
			sse(w, "event: message\ndata:\r"+rv35AllTools(id)+"\n\n")
		}},
		{"SSE: CR line endings, split across writes", func(w http.ResponseWriter, id json.RawMessage) {
			a := "event: message\rdata: " + rv35AllTools(id) + "\r\r"
			sse(w, a[:10], a[10:40], a[40:len(a)-1], a[len(a)-1:])
		}},
		{"SSE: CRLF split between writes", func(w http.ResponseWriter, id json.RawMessage) {
			sse(w, "event: message\r\ndata: "+rv35AllTools(id)+"\r", "\n\r", "\n")
		}},
		{"SSE: the answer in two data lines", func(w http.ResponseWriter, id json.RawMessage) {
			a := rv35AllTools(id)
			sse(w, "data: "+a[:30]+"\ndata: "+a[30:]+"\n\n")
		}},
		{"SSE: the answer ended by the end of the body", func(w http.ResponseWriter, id json.RawMessage) {
			sse(w, "data: "+rv35AllTools(id))
		}},
		{"SSE: a BOM, then the answer", func(w http.ResponseWriter, id json.RawMessage) {
			sse(w, "\xEF\xBB\xBFdata: "+rv35AllTools(id)+"\n\n")
		}},
		{"JSON: tools twice", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"tools":[{"name":"search_products","inputSchema":{"type":"object"}}],`+
				`"tools":[{"name":"checkout","inputSchema":{"type":"object"}}]}}`)
		}},
		{"JSON: Tools", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, strings.Replace(rv35AllTools(id), `"tools"`, `"Tools"`, 1))
		}},
		{"JSON: result escaped", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, strings.Replace(rv35AllTools(id), `"result"`, `"res\u0075lt"`, 1))
		}},
		{"JSON: a tool's name twice", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"tools":[{"name":"search_products","name":"checkout","inputSchema":{"type":"object"}}]}}`)
		}},
		{"JSON: a notification beside the result", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, strings.Replace(rv35AllTools(id), `"jsonrpc":"2.0",`, `"jsonrpc":"2.0","method":"notifications/message",`, 1))
		}},
		{"JSON: a batch of the answer", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, "["+rv35AllTools(id)+"]")
		}},
		{"JSON: gzip", func(w http.ResponseWriter, id json.RawMessage) {
			var b bytes.Buffer
			z := gzip.NewWriter(&b)
			_, _ = io.WriteString(z, rv35AllTools(id))
			_ = z.Close()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(b.Bytes())
		}},
		{"JSON: Content-Type in upper case, with a charset", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "Application/JSON; charset=utf-8")
			_, _ = io.WriteString(w, rv35AllTools(id))
		}},
		{"SSE: a huge event after the headers", func(w http.ResponseWriter, id json.RawMessage) {
			sse(w, "data: "+strings.Replace(rv35AllTools(id), `"inputSchema"`, `"x":"`+strings.Repeat("a", 5<<20)+`","inputSchema"`, 1)+"\n\n")
		}},
		{"JSON: no Content-Type (sniffed text/plain)", func(w http.ResponseWriter, id json.RawMessage) {
			_, _ = io.WriteString(w, rv35AllTools(id))
		}},
		// net/http writes a header map key as it is spelt (and sniffs a
		// Content-Type after it, or none when it is nil); every client
		// reads field names case-insensitively, Header.Get the first.
		{"JSON: Content-Type spelt content-type (a buggy server)", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header()["content-type"] = []string{"application/json"}
			_, _ = io.WriteString(w, rv35AllTools(id))
		}},
		{"SSE: Content-Type spelt CONTENT-TYPE", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header()["Content-Type"] = nil
			w.Header()["CONTENT-TYPE"] = []string{"text/event-stream"}
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "data: "+rv35AllTools(id)+"\n\n")
		}},
		{"SSE: gzip, its Content-Encoding spelt content-encoding", func(w http.ResponseWriter, id json.RawMessage) {
			var b bytes.Buffer
			z := gzip.NewWriter(&b)
			_, _ = io.WriteString(z, "event: message\ndata: "+rv35AllTools(id)+"\n\n")
			_ = z.Close()
			w.Header()["content-encoding"] = []string{"gzip"}
			sse(w, b.String())
		}},
		{"JSON: result\\u0000", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, strings.Replace(rv35AllTools(id), `"result"`, `"result\u0000"`, 1))
		}},
		{"SSE: the answer for the id as a string", func(w http.ResponseWriter, id json.RawMessage) {
			sse(w, "data: "+rv35AllTools(json.RawMessage(`"`+string(id)+`"`))+"\n\n", "data: "+rv35AllTools(id)+"\n\n")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names, err := rv35ListThrough(t, rv35Hostile(tc.answer))
			for _, n := range names {
				if n != "search_products" {
					t.Errorf("HOLE: GPTBot is shown %q (%q, err %v): a refused tool reached the client", n, names, err)
				}
			}
			if strings.Contains(tc.name, "control") && !slices.Equal(names, []string{"search_products"}) {
				t.Errorf("the control: %q, %v", names, err)
			}
		})
	}
}

// TestReview35BrowserUserAgent: a client that sends a browser's
// User-Agent passes untouched (docs/design.md 9, by design); on an MCP
// endpoint that means the session binding, which docs/mcp.md says holds
// "on every request to the endpoint", and a tool's scopes, which
// AuthForEveryClient should check, are skipped by anyone who claims
// Chrome.
func TestReview35BrowserUserAgent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m := rvNew(t, sessionSite())
	rc := &reached{}
	server := mcpShopServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	ts := httptest.NewServer(m.Handler(mux))
	t.Cleanup(ts.Close)
	at := &bearerTransport{ua: mcpClaude}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: at}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	id := at.session(t)
	if got := rawSessionCall(t, ts.URL, http.MethodPost, mcpGPT, id); got != http.StatusNotFound {
		t.Errorf("GPTBot replaying ClaudeBot's session: %d, want 404", got)
	}
	if got := rawSessionCall(t, ts.URL, http.MethodPost, rv35Browser, id); got != http.StatusNotFound {
		t.Errorf("HOLE: POST %s with User-Agent %q and Mcp-Session-Id of ClaudeBot's session: %d, and %d calls reached the server in it",
			"/mcp", "Chrome", got, rc.count("search_products"))
	}
	if got := rawSessionCall(t, ts.URL, http.MethodDelete, rv35Browser, id); got != http.StatusNotFound {
		t.Errorf("HOLE: DELETE /mcp with a browser's User-Agent and ClaudeBot's session id: %d (the server ended it)", got)
	}
}

// TestReview35AuthForEveryClientToolScopes: a binding with
// AuthForEveryClient checks the capability's auth for a browser; a
// tools/call of a tool whose auth adds a scope should need that scope too
// (docs/mcp.md, "What a call is held to" 5).
func TestReview35AuthForEveryClientToolScopes(t *testing.T) {
	is := newTestIssuer(t)
	site := jwtSite(is.srv.URL)
	m := rvNew(t, site, agentready.WithVerification(verify.Options{AllowHTTPLoopback: true}))
	rc := &reached{}
	server := mcpShopServer()
	sdk := rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	mux := http.NewServeMux()
	mux.Handle("/mcp", m.Capability("store-assistant", agentready.AuthForEveryClient())(sdk))
	ts := httptest.NewServer(m.Handler(mux))
	t.Cleanup(ts.Close)
	narrow := is.token(t, is.key, map[string]any{"scope": "store"})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout","arguments":{}}}`
	post := func(ua, token string) int {
		r, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		r.Header.Set("User-Agent", ua)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post(rv35Browser, ""); st != http.StatusUnauthorized {
		t.Errorf("a browser without a token: %d, want 401", st)
	}
	if st := post(mcpClaude, narrow); st != http.StatusForbidden {
		t.Errorf("ClaudeBot with a token without store.checkout: %d, want 403", st)
	}
	if st := post(rv35Browser, narrow); st != http.StatusForbidden {
		t.Errorf("HOLE: POST /mcp tools/call checkout, User-Agent Chrome, a token with scope \"store\" only, behind AuthForEveryClient: %d, %d checkouts reached the server",
			st, rc.count("checkout"))
	}
}

// TestReview35SessionAcrossNetworks: behind a trusted proxy, a session is
// bound to the agent and the client's /24: the same agent from another
// network finds none, on POST, GET and DELETE alike.
func TestReview35SessionAcrossNetworks(t *testing.T) {
	m := rvNew(t, sessionSite(), agentready.WithClients(agentready.Clients{TrustedProxies: []string{"127.0.0.1/32"}}))
	rc := &reached{}
	server := mcpShopServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	ts := httptest.NewServer(m.Handler(mux))
	t.Cleanup(ts.Close)
	send := func(method, from, id, body string) (int, string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		r, _ := http.NewRequest(method, ts.URL+"/mcp", rd)
		r.Header.Set("User-Agent", mcpClaude)
		r.Header.Set("X-Forwarded-For", from)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if id != "" {
			r.Header.Set("Mcp-Session-Id", id)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		resp, err := http.DefaultClient.Do(r.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if method != http.MethodGet || resp.StatusCode != http.StatusOK {
			_, _ = io.Copy(io.Discard, resp.Body)
		}
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	st, id := send(http.MethodPost, "203.0.113.5", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if st != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q", st, id)
	}
	_, _ = send(http.MethodPost, "203.0.113.5", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_products","arguments":{}}}`
	for _, from := range []string{"198.51.100.7", "203.0.114.5", "203.0.113.5, 198.51.100.7", "::ffff:198.51.100.7"} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			body := ""
			if method == http.MethodPost {
				body = call
			}
			if st, _ := send(method, from, id, body); st != http.StatusNotFound {
				t.Errorf("%s from %s in a session opened from 203.0.113.5: %d, want 404", method, from, st)
			}
		}
	}
	// The owner's network (the same /24: by design) still has it.
	if st, _ := send(http.MethodPost, "203.0.113.77", id, call); st != http.StatusOK {
		t.Errorf("the session from its /24 after the replays: %d", st)
	}
	if n := rc.count("search_products"); n != 1 {
		t.Errorf("%d calls reached the server, want the owner's 1", n)
	}
}
