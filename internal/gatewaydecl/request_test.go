package gatewaydecl_test

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/gatewaydecl"
)

// hostile is a gateway over a capability with params in every location
// and an endpoint with a query of its own.
func hostile(t testing.TB) *gatewaydecl.Tool {
	return toolOver(t, config.Capability{Method: "post", Endpoint: "https://t.example/api/items/{id}/notes?v=2",
		Params: []config.Param{
			{Name: "id", In: config.InPath},
			{Name: "q"}, {Name: "n", Type: config.TypeInteger}, {Name: "tags", Type: config.TypeArray},
			{Name: "flag", Type: config.TypeBoolean}, {Name: "f", Type: config.TypeObject},
			{Name: "X-Note", In: config.InHeader}, {Name: "X-List", In: config.InHeader, Type: config.TypeArray},
			{Name: "text", In: config.InBody}, {Name: "count", In: config.InBody, Type: config.TypeInteger},
			{Name: "extra", In: config.InBody, Type: config.TypeObject},
		}}, config.Tool{})
}

func build(t *testing.T, tl *gatewaydecl.Tool, args string) *gatewaydecl.Call {
	t.Helper()
	a, err := tl.Validate(json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	c, err := tl.Call(a)
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return c
}

// TestCallEncoding: hostile values are sent as exactly the values they are,
// each in its own place: no "&", "#", "=", "+", "?", "/", CR or LF
// reaches the URL unescaped, integers are plain decimal, unknown
// arguments are dropped.
func TestCallEncoding(t *testing.T) {
	tl := hostile(t)
	c := build(t, tl, `{"id": "a b?c#d;e%2F&f=g+h\u00e9", "q": "x&admin=1#frag\r\nHost: evil", "n": 1e3,
		"tags": ["a&b", "c d", 2.50, false], "flag": true, "f": {"k": "v&w"},
		"X-Note": "plain: text", "X-List": ["one", "two"],
		"text": "<b>\"hi\"</b>\u2028", "count": 20.0, "extra": {"n": 1.50}, "unknown": "dropped"}`)
	if c.Method != "POST" {
		t.Errorf("method %q", c.Method)
	}
	wantPath := "/api/items/a%20b%3Fc%23d%3Be%252F&f=g+h%C3%A9/notes"
	if got := c.URL.EscapedPath(); got != wantPath {
		t.Errorf("path %s, want %s", got, wantPath)
	}
	if c.URL.Scheme != "https" || c.URL.Host != "t.example" || c.URL.Fragment != "" {
		t.Errorf("URL %s", c.URL)
	}
	wantQuery := "v=2&f=%7B%22k%22%3A%22v%26w%22%7D&flag=true&n=1000&q=x%26admin%3D1%23frag%0D%0AHost%3A+evil&tags=a%26b&tags=c+d&tags=2.50&tags=false"
	if c.URL.RawQuery != wantQuery {
		t.Errorf("query\n %s\nwant\n %s", c.URL.RawQuery, wantQuery)
	}
	q := c.URL.Query()
	if q.Get("q") != "x&admin=1#frag\r\nHost: evil" || q.Get("admin") != "" || len(q["tags"]) != 4 || q.Get("unknown") != "" {
		t.Errorf("query reads back as %v", q)
	}
	if p, _ := url.PathUnescape(strings.Split(c.URL.EscapedPath(), "/")[3]); p != "a b?c#d;e%2F&f=g+hé" {
		t.Errorf("the path segment reads back as %q", p)
	}
	if got := c.Header.Values("X-Note"); len(got) != 1 || got[0] != "plain: text" {
		t.Errorf("X-Note %q", got)
	}
	if got := c.Header.Values("X-List"); len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Errorf("X-List %q", got)
	}
	if c.Header.Get("Content-Type") != "application/json" || len(c.Header) != 3 {
		t.Errorf("header %v", c.Header)
	}
	// encoding/json escapes U+2028 (for JavaScript), nothing else here.
	wantBody := `{"count":20,"extra":{"n":1.50},"text":"<b>\"hi\"</b>\u2028"}`
	if string(c.Body) != wantBody {
		t.Errorf("body %s, want %s", c.Body, wantBody)
	}
	var body map[string]any
	if err := json.Unmarshal(c.Body, &body); err != nil || body["text"] != "<b>\"hi\"</b>\u2028" {
		t.Errorf("the body reads back as %v (%v)", body, err)
	}
	r, err := c.Request(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	if r.Method != "POST" || r.URL.String() != c.URL.String() || string(b) != wantBody || r.Header.Get("X-Note") != "plain: text" {
		t.Errorf("request %s %s %q %v", r.Method, r.URL, b, r.Header)
	}
}

// TestCallWithoutBody: a capability without body params sends no body and
// no Content-Type; an absent optional argument is not sent.
func TestCallWithoutBody(t *testing.T) {
	c := build(t, orderTool(t), `{"order_id": "A-1"}`)
	if c.Body != nil || len(c.Header) != 0 {
		t.Errorf("body %q, header %v", c.Body, c.Header)
	}
	if got := c.URL.String(); got != "https://shop.example/api/orders/A-1?view=status" {
		t.Errorf("URL %s", got)
	}
	r, err := orderTool(t).NewRequest(context.Background(), json.RawMessage(`{"order_id": "7", "since": "2026-12-02T10:00:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Body != nil || r.URL.String() != "https://shop.example/api/orders/7?view=status&since=2026-12-02T10%3A00%3A00Z" || r.Method != "GET" {
		t.Errorf("request %s %s", r.Method, r.URL)
	}
	if _, err := orderTool(t).NewRequest(context.Background(), json.RawMessage(`{}`)); err == nil {
		t.Error("NewRequest built a call without its required argument")
	}
}

// TestCallNeedsValidation: Arguments of another tool are refused.
func TestCallNeedsValidation(t *testing.T) {
	a, err := orderTool(t).Validate(json.RawMessage(`{"order_id": "1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orderTool(t).Call(a); err == nil {
		t.Error("a call was built from another tool's arguments")
	}
	if _, err := orderTool(t).Call(nil); err == nil {
		t.Error("a call was built from no arguments")
	}
}

// TestNewRefuses: a header param no argument may set, a path param the
// endpoint does not template, a template no param fills, a path param of
// a type no segment holds, a header name that is not a token.
func TestNewRefuses(t *testing.T) {
	header := func(name string) config.Capability {
		return config.Capability{Params: []config.Param{{Name: name, In: config.InHeader}}}
	}
	for _, tc := range []struct {
		name string
		c    config.Capability
		want string
	}{
		{"Authorization", header("authorization"), "Authorization, a field (a credential)"},
		{"Cookie", header("Cookie"), "a credential"},
		{"Host", header("Host"), "Host"},
		{"Content-Length", header("content-length"), "framing"},
		{"Connection", header("Connection"), "hop-by-hop"},
		{"Transfer-Encoding", header("Transfer-Encoding"), "hop-by-hop"},
		{"Agentready-*", header("Agentready-Decision"), "agentready's own"},
		{"X-Forwarded-*", header("x-forwarded-for"), "a forwarded field"},
		{"Proxy-*", header("Proxy-Foo"), "a proxy's"},
		{"User-Agent", header("User-Agent"), "identity"},
		{"a method override", header("X-HTTP-Method-Override"), "method override"},
		{"the api-key header", config.Capability{Auth: config.Auth{Type: config.AuthAPIKey},
			Params: []config.Param{{Name: "x-api-key", In: config.InHeader}}}, "api-key"},
		{"not a token", header("X Bad"), "not an HTTP field name"},
		{"CRLF in a name", header("X-A\r\nB"), "not an HTTP field name"},
		{"untemplated path param", config.Capability{Params: []config.Param{{Name: "id", In: config.InPath}}},
			`path param "id" of "c" is not a whole segment {id}`},
		{"a brace inside a segment", config.Capability{Endpoint: "https://t.example/files/{id}.json", Params: []config.Param{{Name: "id", In: config.InPath}}},
			"not a whole segment"},
		{"unfilled template", config.Capability{Endpoint: "https://t.example/api/{id}"}, "templates {id}, which no path param"},
		{"a query param fills no template", config.Capability{Endpoint: "https://t.example/api/{id}", Params: []config.Param{{Name: "id"}}}, "templates {id}"},
		{"array in the path", config.Capability{Endpoint: "https://t.example/api/{id}", Params: []config.Param{{Name: "id", In: config.InPath, Type: config.TypeArray}}},
			"fills no single path segment"},
		{"a param twice", config.Capability{Params: []config.Param{{Name: "q"}, {Name: "q", In: config.InBody}}}, "declared twice"},
	} {
		s := gatewayOver(tc.c, config.Tool{})
		_, err := gatewaydecl.New(&s, "mcp")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `tool "t"`) {
			t.Errorf("%s: %v, want ...%s", tc.name, err, tc.want)
		}
	}
	s := gatewayOver(config.Capability{}, config.Tool{})
	if _, err := gatewaydecl.New(&s, "c"); err == nil {
		t.Error("New read a capability that is not a gateway")
	}
}
