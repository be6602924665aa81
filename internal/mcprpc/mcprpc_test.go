package mcprpc

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		body, method, name string
		batch              bool
		n                  int
		bad                bool
	}{
		{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout","arguments":{}}}`, method: "tools/call", name: "checkout", n: 1},
		{body: `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`, method: "tools/list", n: 1},
		{body: `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a"}}`, method: "resources/read", name: "file:///a", n: 1},
		{body: `{"jsonrpc":"2.0","id":2,"result":{}}`, n: 1},
		{body: `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}]`, method: "notifications/initialized", batch: true, n: 2},
		// Read one way only: another case, a member twice, no name.
		{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"checkout"}}`, bad: true},
		{body: `{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"checkout"}}`, bad: true},
		{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","name":"checkout"}}`, bad: true},
		{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"checkout"}}`, bad: true},
		{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, bad: true},
		{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`, bad: true},
		{body: `[]`, bad: true, batch: true},
		{body: `[{"method":"tools/call","params":{"NAME":"x"}}]`, bad: true, batch: true},
		{body: `not json`, bad: true},
		{body: ``, bad: true},
		{body: `{"method":"tools/call","params":{"name":"a"}} {"x":1}`, bad: true},
	} {
		msgs, batch, err := Parse([]byte(tc.body))
		if tc.bad {
			if err == nil || !errors.Is(err, ErrInvalid) {
				t.Errorf("Parse(%s) = %v, %v; want ErrInvalid", tc.body, msgs, err)
			}
			continue
		}
		if err != nil || batch != tc.batch || len(msgs) != tc.n || msgs[0].Method != tc.method {
			t.Errorf("Parse(%s) = %+v, %v, %v", tc.body, msgs, batch, err)
			continue
		}
		if tc.name != "" && msgs[0].Name != tc.name {
			t.Errorf("Parse(%s) name %q, want %q", tc.body, msgs[0].Name, tc.name)
		}
	}
}

func TestHeadersAgree(t *testing.T) {
	call := []Message{{Method: ToolsCall, Name: "search_products"}}
	list := []Message{{Method: "tools/list"}}
	for _, tc := range []struct {
		name string
		h    http.Header
		msgs []Message
		ok   bool
	}{
		{"no headers, older version", http.Header{}, call, true},
		{"agree", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"search_products"}}, call, true},
		{"base64", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?c2VhcmNoX3Byb2R1Y3Rz?=" /* search_products */}}, call, true},
		{"another tool", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"checkout"}}, call, false},
		{"another case", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"Search_products"}}, call, false},
		{"trailing space", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"search_products "}}, call, false},
		{"bad base64", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?!!?="}}, call, false},
		{"another method", http.Header{"Mcp-Method": {"tools/list"}}, call, false},
		{"twice", http.Header{"Mcp-Method": {"tools/call", "tools/call"}, "Mcp-Name": {"search_products"}}, call, false},
		{"name on a list", http.Header{"Mcp-Method": {"tools/list"}, "Mcp-Name": {"x"}}, list, false},
		{"name alone", http.Header{"Mcp-Name": {"search_products"}}, call, false},
		{"2026-07-28 without headers", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}, call, false},
		{"2026-07-28 without name", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}}, call, false},
		{"2026-07-28 list", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"}}, list, true},
	} {
		err := HeadersAgree(tc.h, tc.msgs, false)
		if (err == nil) != tc.ok {
			t.Errorf("%s: HeadersAgree = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	if HeadersAgree(http.Header{"Mcp-Method": {"tools/call"}}, append(call, list...), true) == nil {
		t.Error("headers on a batch agree")
	}
}

// FuzzParse: Parse never panics, and what it reads of a message is what
// encoding/json reads into the Go SDK's shapes (case-insensitive member
// names, the last of duplicates): no body is read one way here and
// another there.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout"}}`,
		`[{"method":"tools/call","params":{"name":"a"}},{"method":"ping"}]`,
		`{"method":"tools/call","params":{"Name":"a","name":"b"}}`,
		`{"method":"resources/read","params":{"uri":"x"}}`,
		`{"method":"tools/call","params":{"name":"\u0063heckout"}}`,
		"\v{}", "\v[{}]", // not JSON's whitespace (found by the fuzzer)
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, batch, err := Parse(body)
		if err != nil || batch {
			return
		}
		var sdk struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &sdk) != nil {
			t.Fatalf("Parse read %q, which encoding/json refuses", body)
		}
		m := msgs[0]
		if sdk.Method != m.Method {
			t.Fatalf("method %q here, %q for encoding/json: %q", m.Method, sdk.Method, body)
		}
		want := ""
		switch m.Method {
		case ToolsCall, "prompts/get":
			want = sdk.Params.Name
		case "resources/read":
			want = sdk.Params.URI
		}
		if want != m.Name {
			t.Fatalf("name %q here, %q for encoding/json: %q", m.Name, want, body)
		}
	})
}

// FuzzMembers: what jsonfast reads, members reads with the decoder the
// same way.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout"}}`,
		`{"id":1,"id":2}`, `{"ID":1}`, `{"id":"\u0031"}`, `{"id":[1,{"a":"\n"}]} `, `{"id":1}x`, "{\"id\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, ok := fastMembers(raw, []string{"jsonrpc", "id", "method", "params"})
		if !ok {
			return
		}
		slow, err := decodeMembers(raw, []string{"jsonrpc", "id", "method", "params"})
		if err != nil || len(fast) != len(slow) {
			t.Fatalf("%q: jsonfast read %q, the decoder %q (%v)", raw, fast, slow, err)
		}
		for k, v := range fast {
			if string(slow[k]) != string(v) {
				t.Fatalf("%q: %s is %q, the decoder's %q", raw, k, v, slow[k])
			}
		}
	})
}
