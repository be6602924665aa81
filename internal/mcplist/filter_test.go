package mcplist

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func allowSearch(name string) bool { return name == "search" }

func TestMessage(t *testing.T) {
	const id = `7`
	for _, tc := range []struct {
		name, in, out string
		kind          kind
		bad           bool
	}{
		{name: "filtered, the rest as sent",
			in:   `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"checkout","inputSchema":{"type":"object"}}, {"name":"search" ,"x":[1,{"name":"checkout"}]} ,{"name":"admin"}],"nextCursor":"Mg==","ttlMs":0}}`,
			out:  `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"search" ,"x":[1,{"name":"checkout"}]}],"nextCursor":"Mg==","ttlMs":0}}`,
			kind: answer},
		{name: "members in any order, whitespace kept",
			in:   "{ \"result\" : { \"nextCursor\" : \"\" ,\n \"tools\" : [ {\"name\":\"admin\"} ,\n {\"description\":\"d\",\"name\":\"search\"} ] } , \"id\" : 7 , \"jsonrpc\" : \"2.0\" }",
			out:  "{ \"result\" : { \"nextCursor\" : \"\" ,\n \"tools\" : [{\"description\":\"d\",\"name\":\"search\"}] } , \"id\" : 7 , \"jsonrpc\" : \"2.0\" }",
			kind: answer},
		{name: "nothing allowed", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"admin"}]}}`, out: `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`, kind: answer},
		{name: "an escaped name", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"se\u0061rch"},{"name":"adm\u0069n"}]}}`, out: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"se\u0061rch"}]}}`, kind: answer},
		{name: "an error response", in: `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad cursor"}}`, out: `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad cursor"}}`, kind: answer},
		{name: "a result without tools", in: `{"jsonrpc":"2.0","id":7,"result":{}}`, out: `{"jsonrpc":"2.0","id":7,"result":{}}`, kind: answer},
		{name: "a notification", in: `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, kind: other},
		{name: "a request of the server", in: `{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"tools":[{"name":"admin"}]}}`, kind: other},
		{name: "another id", in: `{"jsonrpc":"2.0","id":8,"result":{"tools":[{"name":"admin"}]}}`, kind: stray},
		{name: "the id as a string", in: `{"jsonrpc":"2.0","id":"7","result":{"tools":[{"name":"admin"}]}}`, kind: stray},
		{name: "no id", in: `{"jsonrpc":"2.0","result":{"tools":[{"name":"admin"}]}}`, kind: stray},
		{name: "the id 7.0", in: `{"jsonrpc":"2.0","id":7.0,"result":{"tools":[{"name":"admin"}]}}`, out: `{"jsonrpc":"2.0","id":7.0,"result":{"tools":[]}}`, kind: answer},
		// Tools that cannot be read one way only are not listed.
		{name: "a name in another case", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"search","Name":"admin"},{"NAME":"search"}]}}`, out: `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`, kind: answer},
		// A name twice is read as every client reads it, the last.
		{name: "a name twice", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"search","name":"admin"},{"name":"admin","name":"search"}]}}`, out: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"admin","name":"search"}]}}`, kind: answer},
		{name: "no name, a name not a string, not objects", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{},{"name":["search"]},"search",["search"],null,{"name":"search"}]}}`, out: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"search"}]}}`, kind: answer},
		// Messages that cannot be read one way only fail closed.
		{name: "tools in another case", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[],"Tools":[{"name":"admin"}]}}`, bad: true},
		{name: "tools with a long s", in: `{"jsonrpc":"2.0","id":7,"result":{"toolſ":[{"name":"admin"}]}}`, bad: true},
		{name: "tools twice", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[],"tools":[{"name":"admin"}]}}`, bad: true},
		{name: "result twice", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[]},"result":{"tools":[{"name":"admin"}]}}`, bad: true},
		{name: "result in another case", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[]},"Result":{"tools":[{"name":"admin"}]}}`, bad: true},
		{name: "id twice", in: `{"jsonrpc":"2.0","id":8,"id":7,"result":{"tools":[{"name":"admin"}]}}`, bad: true},
		{name: "a method beside a result", in: `{"jsonrpc":"2.0","id":7,"method":"x","result":{"tools":[{"name":"admin"}]}}`, bad: true},
		{name: "tools not an array", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":{"name":"admin"}}}`, bad: true},
		{name: "result not an object", in: `{"jsonrpc":"2.0","id":7,"result":[{"name":"admin"}]}`, bad: true},
		{name: "a batch", in: `[{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"admin"}]}}]`, bad: true},
		{name: "malformed", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"admin"}]}`, bad: true},
		{name: "something after it", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}} {"id":7,"result":{"tools":[{"name":"admin"}]}}`, bad: true},
		{name: "not JSON", in: `event: message`, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, k, err := message([]byte(tc.in), []byte(id), allowSearch)
			if tc.bad {
				if !errors.Is(err, errUnreadable) {
					t.Fatalf("message(%s) = %s, %v, %v; want errUnreadable", tc.in, out, k, err)
				}
				return
			}
			if err != nil || k != tc.kind || string(out) != tc.out {
				t.Fatalf("message(%s)\n= %s, %v, %v\nwant %s, %v", tc.in, out, k, err, tc.out, tc.kind)
			}
			if k == answer {
				assertOnlyAllowed(t, out)
			}
		})
	}
}

func TestSameID(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		same      bool
	}{
		{`1`, `1`, true}, {`1`, `1.0`, true}, {`1e2`, `100`, true}, {`"a"`, `"\u0061"`, true},
		{`"1"`, `1`, false}, {`1`, `2`, false}, {`null`, `null`, false}, {``, `1`, false}, {`1`, `1e999999999`, false},
	} {
		if sameID([]byte(tc.got), []byte(tc.want)) != tc.same {
			t.Errorf("sameID(%s, %s) = %v", tc.got, tc.want, !tc.same)
		}
	}
}

// assertOnlyAllowed reads a response as encoding/json does (member names
// in any case, the last of duplicates) and fails on any tool allowSearch
// refuses.
func assertOnlyAllowed(t *testing.T, msg []byte) {
	t.Helper()
	var r struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		t.Fatalf("the filtered answer is no JSON: %v: %s", err, msg)
	}
	for _, tl := range r.Result.Tools {
		if !allowSearch(tl.Name) {
			t.Fatalf("the filtered answer lists %q: %s", tl.Name, msg)
		}
	}
}

// FuzzMessage: whatever the server sends, a message passed on as the
// answer lists no tool the caller may not call, read as encoding/json
// reads it.
func FuzzMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"search"},{"name":"admin"}],"nextCursor":"x"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"search","Name":"admin"}]}}`,
		`{"id":7,"Result":{"tools":[{"name":"admin"}]},"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	} {
		f.Add(s)
	}
	f.Add(`[{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"search"},{"name":"admin"}]}},{"id":1,"result":{}}]`)
	f.Fuzz(func(t *testing.T, in string) {
		// A JSON body, of one request (id 7) or of a batch (nil id).
		for _, id := range []json.RawMessage{json.RawMessage(`7`), nil} {
			rec := httptest.NewRecorder()
			w := New(rec, id, allowSearch, 0)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(in))
			_ = w.Finish()
			checkPassed(t, rec.Body.Bytes(), id, in, rec.Body.String())
		}
		out, k, err := message([]byte(in), []byte(`7`), allowSearch)
		if err != nil || k == stray {
			return
		}
		if k == other {
			out = []byte(in) // passed as sent
		}
		var r struct {
			Result struct {
				Tools []struct{ Name string } `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(out, &r) != nil {
			return // no client reads it as a list
		}
		for _, tl := range r.Result.Tools {
			if !allowSearch(tl.Name) {
				t.Fatalf("message(%q) passes %q on: %s", in, tl.Name, out)
			}
		}
	})
}

// BenchmarkMessage: the filter alone, on a page of 50 tools with schemas
// as the Go SDK renders them, half of them allowed.
func BenchmarkMessage(b *testing.B) {
	var tools []string
	for i := range 50 {
		name := "search"
		if i%2 == 1 {
			name = "admin" + strconv.Itoa(i)
		}
		tools = append(tools, `{"description":"looks things up","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","description":"how many results at most"}},"required":["query"],"additionalProperties":false},"name":"`+name+`","outputSchema":{"type":"object","properties":{"results":{"type":["null","array"],"items":{"type":"string"}}},"required":["results"],"additionalProperties":false}}`)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[` + strings.Join(tools, ",") + `]}}`)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, k, err := message(msg, []byte(`7`), allowSearch); err != nil || k != answer {
			b.Fatal(k, err)
		}
	}
}
