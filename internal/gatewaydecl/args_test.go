package gatewaydecl_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/gatewaydecl"
)

// orderTool is issue 37's order_status tool: a path param, a uuid header,
// a date-time query param.
func orderTool(t *testing.T) *gatewaydecl.Tool {
	t.Helper()
	s := issue37()
	g, err := gatewaydecl.New(&s, "store-assistant")
	if err != nil {
		t.Fatal(err)
	}
	return g.Tool("order_status")
}

// TestValidateFaults: every fault of a call's arguments, by param.
func TestValidateFaults(t *testing.T) {
	s := issue37()
	g, err := gatewaydecl.New(&s, "store-assistant")
	if err != nil {
		t.Fatal(err)
	}
	search, cart, order, cancel := g.Tool("search_products"), g.Tool("add_to_cart"), g.Tool("order_status"), g.Tool("cancel_order")
	for _, tc := range []struct {
		tool *gatewaydecl.Tool
		args string
		want []string // "param: substring of its message", in order
	}{
		{search, `{}`, []string{"q: is required"}},
		{search, ``, []string{"q: is required"}},
		{search, `null`, []string{"q: is required"}},
		{search, `{"q": 7, "limit": 80}`, []string{"limit: maximum", "q: got number, want string"}},
		{search, `{"limit": 0.5}`, []string{"limit: got number, want integer", "q: is required"}},
		{search, `{"limit": 0}`, []string{"limit: minimum", "q: is required"}},
		{search, `{"q": null}`, []string{"q: got null, want string"}},
		{search, `[]`, []string{"arguments: not a JSON object"}},
		{search, `"q"`, []string{"arguments: not a JSON object"}},
		{search, `{"q": "a"`, []string{"arguments: not JSON"}},
		{search, `{"q": "a", "q": "b"}`, []string{`arguments: the member "q" is given twice`}},
		{search, `{"q": "a", "x": {"k": 1, "k": 2}}`, []string{`arguments: the member "k" is given twice`}},
		{search, `{"q": "a", "limit": 1e999999}`, []string{"arguments: the number"}},
		{cart, `{"qty": "2"}`, []string{"qty: got string, want integer", "sku: is required"}},
		{order, `{}`, []string{"order_id: is required"}},
		{order, `{"order_id": "1", "since": "yesterday", "X-Request-Id": "nope"}`, []string{"X-Request-Id: ", "since: "}},
		{order, `{"order_id": ".."}`, []string{"order_id: is \"..\", a dot segment"}},
		{order, `{"order_id": "."}`, []string{"order_id: is \".\", a dot segment"}},
		{order, `{"order_id": ""}`, []string{"order_id: is empty"}},
		{order, `{"order_id": "a/b"}`, []string{`order_id: holds "/"`}},
		{order, `{"order_id": "a\\b"}`, []string{`order_id: holds "/"`}},
		{order, `{"order_id": "a\nb"}`, []string{"order_id: holds a control character"}},
		{cancel, `{"order_id": "1", "reason": "bored"}`, []string{"reason: value must be one of"}},
	} {
		_, err := tc.tool.Validate(json.RawMessage(tc.args))
		var faults gatewaydecl.Faults
		if !errors.As(err, &faults) {
			t.Errorf("%s %s: %v, want faults %q", tc.tool.Name, tc.args, err, tc.want)
			continue
		}
		if len(faults) != len(tc.want) {
			t.Errorf("%s %s: %q, want %q", tc.tool.Name, tc.args, faults.Error(), tc.want)
			continue
		}
		for i, f := range faults {
			param, msg, _ := strings.Cut(tc.want[i], ": ")
			if param == "arguments" {
				param = ""
			}
			if f.Param != param || !strings.Contains(f.Msg, msg) {
				t.Errorf("%s %s: fault %d is %+v, want %s", tc.tool.Name, tc.args, i, f, tc.want[i])
			}
		}
	}
}

// TestValidateHeaderValues: a header argument is visible ASCII, without
// surrounding white space; an array is one field line per item.
func TestValidateHeaderValues(t *testing.T) {
	tl := toolOver(t, config.Capability{Params: []config.Param{
		{Name: "X-Tag", In: config.InHeader}, {Name: "X-Tags", In: config.InHeader, Type: config.TypeArray}}}, config.Tool{})
	for _, bad := range []string{
		`{"X-Tag": "a\r\nX-Evil: 1"}`, `{"X-Tag": "a\u0000"}`, `{"X-Tag": " a"}`, `{"X-Tag": "a\t"}`,
		`{"X-Tag": "caf\u00e9"}`, `{"X-Tags": ["ok", "b\nad"]}`, `{"X-Tags": [{"o": 1}]}`,
	} {
		if _, err := tl.Validate(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	for _, good := range []string{`{"X-Tag": "a b\tc"}`, `{"X-Tags": ["a", 1, true]}`, `{"X-Tag": ""}`} {
		if _, err := tl.Validate(json.RawMessage(good)); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// TestValidateKeepsDeclared: an unknown argument is dropped, a declared
// one kept as sent.
func TestValidateKeepsDeclared(t *testing.T) {
	a, err := orderTool(t).Validate(json.RawMessage(`{"order_id": "42", "admin": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := a.Value("order_id"); !ok || v != "42" {
		t.Errorf("order_id: %v %v", v, ok)
	}
	if _, ok := a.Value("admin"); ok {
		t.Error("the unknown argument admin was kept")
	}
}

// TestValidateOutput: an answer conforms to the output schema or is said
// not to; a tool without one accepts any answer.
func TestValidateOutput(t *testing.T) {
	tl := orderTool(t)
	if err := tl.ValidateOutput([]byte(`{"status": "shipped", "tracking": "https://t.example/1", "more": 1}`)); err != nil {
		t.Errorf("a conforming answer: %v", err)
	}
	for _, bad := range []string{`{"status": "lost"}`, `{"tracking": "not a uri"}`, `[]`, `{"status": "open", "status": "open"}`, `{`} {
		if err := tl.ValidateOutput([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	s := issue37()
	g, _ := gatewaydecl.New(&s, "store-assistant")
	if err := g.Tool("search_products").ValidateOutput([]byte(`anything`)); err != nil {
		t.Errorf("no output schema: %v", err)
	}
}
