package gatewaydecl_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/gatewaydecl"
)

// FuzzCall: whatever the arguments, Validate never panics and returns
// arguments or Faults; a call built from what it accepts has the
// capability's method, stays on the site's origin and path (each
// path argument exactly one segment), carries no fragment, and its
// header values hold no line break.
func FuzzCall(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, ``, `[]`, `{"id": "x", "q": "a&b#c", "n": 3}`,
		`{"id": "..", "X-Note": "a\r\nb"}`, `{"id": "a/b"}`, `{"id": "%2e%2e", "tags": ["a", 1, true, null]}`,
		`{"id": "1", "text": "t", "count": 1e308, "extra": {"a": [1, {"b": 2}]}}`,
		`{"id": "1", "id": "2"}`, `{"id": 1e999999999}`, `{"id": "1", "X-List": ["a", " b"]}`,
		`{"id":"\u0000"}`, `{"id":"\ud800"}`, "{\"id\":\"\xff\"}",
	} {
		f.Add(seed)
	}
	tl := hostile(f)
	f.Fuzz(func(t *testing.T, raw string) {
		a, err := tl.Validate(json.RawMessage(raw))
		if err != nil {
			var faults gatewaydecl.Faults
			if !errors.As(err, &faults) || len(faults) == 0 {
				t.Fatalf("%q: %v is not Faults", raw, err)
			}
			return
		}
		c, err := tl.Call(a)
		if err != nil {
			t.Fatalf("%q: validated, then no call: %v", raw, err)
		}
		segs := strings.Split(c.URL.EscapedPath(), "/")
		if c.Method != "POST" || c.URL.Scheme != "https" || c.URL.Host != "t.example" || c.URL.Fragment != "" ||
			len(segs) != 5 || segs[1] != "api" || segs[2] != "items" || segs[4] != "notes" {
			t.Fatalf("%q: %s %s", raw, c.Method, c.URL)
		}
		if seg, err := url.PathUnescape(segs[3]); err != nil || seg == "." || seg == ".." || seg == "" || strings.ContainsAny(seg, "/\\") {
			t.Fatalf("%q: path segment %q (%v)", raw, segs[3], err)
		}
		if !strings.HasPrefix(c.URL.RawQuery, "v=2") {
			t.Fatalf("%q: query %q", raw, c.URL.RawQuery)
		}
		for k, vs := range c.Header {
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("%q: header %s: %q", raw, k, v)
				}
			}
		}
		if _, err := c.Request(context.Background()); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
	})
}

// FuzzNew: New never panics, whatever the called capability's endpoint
// and param names, and what it accepts builds its calls.
func FuzzNew(f *testing.F) {
	f.Add("https://t.example/api/{id}", "id", "path", "X-Y", "header")
	f.Add("https://t.example/{a}/{a}?x=1#f", "a", "path", "Cookie", "header")
	f.Add("/relative/{id}", "id", "query", "q", "body")
	f.Add("https://t.example/%zz/{id}", "id", "path", "", "query")
	f.Fuzz(func(t *testing.T, ep, name1, in1, name2, in2 string) {
		s := gatewayOver(config.Capability{Endpoint: ep, Params: []config.Param{{Name: name1, In: in1}, {Name: name2, In: in2}}}, config.Tool{})
		g, err := gatewaydecl.New(&s, "mcp")
		if err != nil {
			return
		}
		if _, err := g.Tools[0].Validate(json.RawMessage(`{}`)); err != nil {
			return
		}
	})
}
