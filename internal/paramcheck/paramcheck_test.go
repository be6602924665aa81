package paramcheck

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
)

func bound(f float64) *float64 { return &f }

// TestCoercion is the table of the rules: each value of a string source
// and of a JSON body, against one declared param.
func TestCoercion(t *testing.T) {
	integer := config.Param{Name: "n", Type: config.TypeInteger}
	number := config.Param{Name: "n", Type: config.TypeNumber}
	boolean := config.Param{Name: "n", Type: config.TypeBoolean}
	str := config.Param{Name: "n"}
	for _, tc := range []struct {
		p    config.Param
		val  string // a query value
		want string // the fault code, "" for none
	}{
		{integer, "42", ""},
		{integer, "-7", ""},
		{integer, "007", ""}, // -?[0-9]+: leading zeros are digits
		{integer, "-0", ""},
		{integer, "123456789012345678901234567890", ""},
		{integer, "+1", CodeType},
		{integer, "1e2", CodeType},
		{integer, "1.0", CodeType},
		{integer, "0x10", CodeType},
		{integer, "1_000", CodeType},
		{integer, " 1", CodeType},
		{integer, "", CodeType},
		{integer, "-", CodeType},
		{integer, "NaN", CodeType},
		{integer, "١٢", CodeType}, // Arabic-Indic digits are not [0-9]
		{number, "1.5", ""},
		{number, "-0.5e-3", ""},
		{number, "1E+2", ""},
		{number, "0", ""},
		{number, "007", CodeType}, // a JSON number has no leading zero
		{number, "+1", CodeType},
		{number, ".5", CodeType},
		{number, "5.", CodeType},
		{number, "NaN", CodeType},
		{number, "Infinity", CodeType},
		{number, "-Inf", CodeType},
		{number, "0x1p3", CodeType},
		{number, "1e", CodeType},
		{boolean, "true", ""},
		{boolean, "false", ""},
		{boolean, "True", CodeType},
		{boolean, "1", CodeType},
		{boolean, "yes", CodeType},
		{boolean, "", CodeType},
		{str, "", ""},
		{str, "anything at all", ""},
		{config.Param{Name: "n", Type: config.TypeInteger, Min: bound(1), Max: bound(50)}, "50", ""},
		{config.Param{Name: "n", Type: config.TypeInteger, Min: bound(1), Max: bound(50)}, "51", CodeMax},
		{config.Param{Name: "n", Type: config.TypeInteger, Min: bound(1), Max: bound(50)}, "0", CodeMin},
		{config.Param{Name: "n", Type: config.TypeInteger, Max: bound(50)}, "99999999999999999999999999999999", CodeMax},
		{config.Param{Name: "n", Type: config.TypeNumber, Max: bound(50)}, "1e999", CodeMax}, // +Inf
		{config.Param{Name: "n", Type: config.TypeNumber, Min: bound(0)}, "-1e999", CodeMin},
		{config.Param{Name: "n", Type: config.TypeNumber, Max: bound(0)}, "-0", ""},
		{config.Param{Name: "n", Type: config.TypeInteger, Enum: []any{1, 2, 3}}, "02", ""}, // compared after coercion
		{config.Param{Name: "n", Type: config.TypeInteger, Enum: []any{1, 2, 3}}, "4", CodeEnum},
		{config.Param{Name: "n", Type: config.TypeInteger, Enum: []any{"1", "2"}}, "2", ""},
		{config.Param{Name: "n", Type: config.TypeNumber, Enum: []any{0.5}}, "5e-1", ""},
		{config.Param{Name: "n", Enum: []any{"mugs", "bowls"}}, "mugs", ""},
		{config.Param{Name: "n", Enum: []any{"mugs", "bowls"}}, "Mugs", CodeEnum},
		{config.Param{Name: "n", Enum: []any{7}}, "7", ""},
		{config.Param{Name: "n", Enum: []any{7}}, "07", CodeEnum}, // a string is not coerced
		{config.Param{Name: "n", Type: config.TypeBoolean, Enum: []any{true}}, "false", CodeEnum},
		{config.Param{Name: "n", Type: config.TypeString, Min: bound(5)}, "a", ""}, // bounds are numbers' only
	} {
		c := New([]config.Param{tc.p}, nil, false)
		r := httptest.NewRequest("GET", "/x?n="+urlEscape(tc.val), nil)
		got := c.Request(r, "/x", nil)
		if code := firstCode(got); code != tc.want {
			t.Errorf("%s %q: %v, want %q", tc.p.Type, tc.val, got, tc.want)
		}
	}
}

// TestCoercionJSON is the rules on the values of a JSON body, and the
// same values as Args receives them (decoded with and without UseNumber).
func TestCoercionJSON(t *testing.T) {
	for _, tc := range []struct {
		p    config.Param
		val  string // a JSON value
		want string
	}{
		{config.Param{Name: "n", Type: config.TypeInteger}, `42`, ""},
		{config.Param{Name: "n", Type: config.TypeInteger}, `-0`, ""},
		{config.Param{Name: "n", Type: config.TypeInteger}, `1e2`, CodeType}, // no exponent
		{config.Param{Name: "n", Type: config.TypeInteger}, `1.0`, CodeType}, // no fraction
		{config.Param{Name: "n", Type: config.TypeInteger}, `"42"`, CodeType},
		{config.Param{Name: "n", Type: config.TypeInteger}, `null`, CodeType},
		{config.Param{Name: "n", Type: config.TypeInteger}, `true`, CodeType},
		{config.Param{Name: "n", Type: config.TypeNumber}, `1e2`, ""},
		{config.Param{Name: "n", Type: config.TypeNumber}, `"1"`, CodeType},
		{config.Param{Name: "n", Type: config.TypeNumber, Max: bound(10)}, `1e400`, CodeMax},
		{config.Param{Name: "n", Type: config.TypeBoolean}, `false`, ""},
		{config.Param{Name: "n", Type: config.TypeBoolean}, `"true"`, CodeType},
		{config.Param{Name: "n", Type: config.TypeBoolean}, `0`, CodeType},
		{config.Param{Name: "n"}, `"x"`, ""},
		{config.Param{Name: "n"}, `1`, CodeType},
		{config.Param{Name: "n"}, `{"a":1}`, CodeType},
		{config.Param{Name: "n", Type: config.TypeArray}, `[1,"a"]`, ""},
		{config.Param{Name: "n", Type: config.TypeArray}, `"a"`, CodeType},
		{config.Param{Name: "n", Type: config.TypeArray, Enum: []any{"a", "b"}}, `["a","b","a"]`, ""},
		{config.Param{Name: "n", Type: config.TypeArray, Enum: []any{"a", "b"}}, `["a","c"]`, CodeEnum},
		{config.Param{Name: "n", Type: config.TypeArray, Enum: []any{1, 2}}, `[1,2.0]`, ""},
		{config.Param{Name: "n", Type: config.TypeObject}, `{"a":[1]}`, ""},
		{config.Param{Name: "n", Type: config.TypeObject}, `[]`, CodeType},
		{config.Param{Name: "n", Type: config.TypeInteger, Enum: []any{1, 2}}, `2`, ""},
		{config.Param{Name: "n", Enum: []any{1, 2}}, `"2"`, ""},
		{config.Param{Name: "n", Type: config.TypeInteger, Min: bound(1)}, `0`, CodeMin},
	} {
		body := `{"n":` + tc.val + `}`
		p := tc.p
		p.In = config.InBody
		c := New([]config.Param{p}, nil, false)
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		if code := firstCode(c.Request(r, "/x", []byte(body))); code != tc.want {
			t.Errorf("body %s as %s: %q, want %q", body, p.Type, code, tc.want)
		}
		var args map[string]any
		dec := json.NewDecoder(strings.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			t.Fatal(err)
		}
		if code := firstCode(New([]config.Param{tc.p}, nil, false).Args(args)); code != tc.want {
			t.Errorf("args %s as %s: %q, want %q", body, p.Type, code, tc.want)
		}
	}
}

// TestArgsFloat: arguments decoded without UseNumber have lost the
// number's text; an integer is then an integral float64 within 2^53.
func TestArgsFloat(t *testing.T) {
	c := New([]config.Param{{Name: "n", Type: config.TypeInteger, Required: true}, {Name: "q", Required: true}}, nil, false)
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"n": 3.0, "q": "x"}, nil},
		{map[string]any{"n": 3, "q": "x"}, nil},
		{map[string]any{"n": 3.5, "q": "x"}, []string{"n " + CodeType}},
		{map[string]any{"n": 1e300, "q": "x"}, []string{"n " + CodeType}},
		{map[string]any{"N": 3, "q": "x"}, []string{"n " + CodeCase, "n " + CodeMissing}},
		{map[string]any{}, []string{"n " + CodeMissing, "q " + CodeMissing}},
		{map[string]any{"n": 1, "q": "x", "other": []any{nil}}, nil}, // unknown: left alone
	} {
		if got := codes(c.Args(tc.args)); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%v: %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestRequest: every fault of a call, with where it was read.
func TestRequest(t *testing.T) {
	params := []config.Param{
		{Name: "q", Required: true},
		{Name: "limit", Type: config.TypeInteger, Min: bound(1), Max: bound(50)},
		{Name: "tags", Type: config.TypeArray, Enum: []any{"red", "blue"}},
		{Name: "id", In: config.InPath, Type: config.TypeInteger},
		{Name: "X-Tenant", In: config.InHeader, Required: true, Enum: []any{"a", "b"}},
		{Name: "X-Ids", In: config.InHeader, Type: config.TypeArray, Enum: []any{"1", "2"}},
		{Name: "qty", In: config.InBody, Type: config.TypeInteger, Required: true},
		{Name: "note", In: config.InBody},
	}
	c := New(params, []string{"", "api", "orders", "{id}"}, false)
	for _, tc := range []struct {
		name   string
		target string
		header [][2]string
		body   string
		ctype  string
		want   []string
	}{
		{"valid", "/api/orders/42?q=tent&limit=5&tags=red&tags=blue", [][2]string{{"X-Tenant", "a"}, {"X-Ids", "1, 2"}, {"X-Ids", "2"}}, `{"qty":2,"note":"x","other":[1,{"qty":"nested: not read"}]}`, "application/json", nil},
		{"unknown params pass", "/api/orders/42?q=tent&zzz=1&Q2=3&limit[x", [][2]string{{"X-Tenant", "b"}, {"X-Other", "1"}}, `{"qty":1,"unknown":"x","unknown":"y"}`, "", nil},
		{"missing", "/api/orders/42", nil, `{}`, "application/json", []string{"q query missing", "X-Tenant header missing", "qty body missing"}},
		{"wrong types", "/api/orders/x?q=a&limit=1e2", [][2]string{{"X-Tenant", "a"}}, `{"qty":"2"}`, "application/json", []string{"limit query type", "id path type", "qty body type"}},
		{"bounds and enums", "/api/orders/1?q=a&limit=51&tags=red&tags=green", [][2]string{{"X-Tenant", "c"}, {"X-Ids", "1,3"}}, `{"qty":1}`, "", []string{"limit query max", "tags query enum", "X-Tenant header enum", "X-Ids header enum"}},
		{"duplicate query name", "/api/orders/1?q=a&limit=5&limit=500", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"limit query repeated", "limit query max"}},
		{"query name in another case", "/api/orders/1?q=a&LIMIT=500", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"limit query case"}},
		{"query name encoded", "/api/orders/1?q=a&li%6Dit=500", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"limit query max"}},
		{"query split at ;", "/api/orders/1?q=a&limit=5;limit=500", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"limit query type", "limit query repeated", "limit query max"}},
		{"query structure", "/api/orders/1?q=a&limit[]=500", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"limit query type"}},
		{"bad escape", "/api/orders/1?q=%zz", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"q query bad-escape", "q query missing"}},
		{"header twice", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}, {"x-tenant", "b"}}, `{"qty":1}`, "", []string{"X-Tenant header repeated"}},
		{"header spelt for CGI", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}, {"X_Tenant", "b"}}, `{"qty":1}`, "", []string{"X-Tenant header case"}},
		{"duplicate body member", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `{"qty":1,"qty":"x"}`, "", []string{"qty body repeated", "qty body type"}},
		{"body member in another case", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `{"qty":1,"QTY":500}`, "", []string{"qty body case"}},
		{"body member in mixed case", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `{"qty":1,"note":"x","noTe":"y"}`, "", []string{"note body case"}},
		{"body not JSON", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `qty=1`, "", []string{" body body"}},
		{"body data after", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}{"qty":2}`, "", []string{" body body"}},
		{"body array", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `[{"qty":1}]`, "", []string{" body body"}},
		{"body multipart", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `--x--`, "multipart/form-data; boundary=x", []string{" body body"}},
		{"body gzip", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}, {"Content-Encoding", "gzip"}}, `{"qty":1}`, "", []string{" body body"}},
		{"form body", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `qty=1&note=x`, "application/x-www-form-urlencoded", nil},
		{"form body wrong", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `qty=x&qty=2`, "application/x-www-form-urlencoded", []string{"qty body repeated", "qty body type"}},
		{"empty body", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, ``, "application/json", []string{"qty body missing"}},
		{"path reading without extension", "/api/orders/4x.json?q=a", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"id path type"}},
		{"path with trailing slash", "/api/orders/abc/?q=a", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"id path type"}},
		{"path elsewhere is not read", "/bound/route?q=a", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", nil},
		// Merging frameworks (Rails, PHP's $_REQUEST, Flask's values) read
		// a body param from the query and a query param from the body.
		{"body param in the query", "/api/orders/1?q=a&qty=x", [][2]string{{"X-Tenant", "a"}}, `{"qty":1}`, "", []string{"qty query type"}},
		{"body param only in the query", "/api/orders/1?q=a&qty=-5&qty=7", [][2]string{{"X-Tenant", "a"}}, `{}`, "", []string{"qty query repeated", "qty body missing"}},
		{"query param in a JSON body", "/api/orders/1?q=a&limit=5", [][2]string{{"X-Tenant", "a"}}, `{"qty":1,"limit":500}`, "", []string{"limit body max"}},
		{"query param in a form body", "/api/orders/1?limit=5", [][2]string{{"X-Tenant", "a"}}, `qty=1&q=x&limit=0`, "application/x-www-form-urlencoded", []string{"q query missing", "limit body min"}},
		{"query param in the body as declared", "/api/orders/1?q=a", [][2]string{{"X-Tenant", "a"}}, `{"qty":1,"limit":5,"q":"b"}`, "", nil},
	} {
		r := httptest.NewRequest("POST", tc.target, strings.NewReader(tc.body))
		for _, h := range tc.header {
			r.Header.Add(h[0], h[1]) // as Go's server reads it: canonical, or as sent when not a valid name to canonicalize
		}
		if tc.ctype != "" {
			r.Header.Set("Content-Type", tc.ctype)
		}
		got := c.Request(r, r.URL.EscapedPath(), []byte(tc.body))
		if g := faultKeys(got); strings.Join(g, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %v\nwant %v\n%v", tc.name, g, tc.want, (&Error{got}).Error())
		}
	}
}

// TestUnicodeFold: encoding/json folds names as strings.EqualFold does,
// so "ſku" (U+017F, long s) reads as the member sku: a fault.
func TestUnicodeFold(t *testing.T) {
	c := New([]config.Param{{Name: "sku", In: config.InBody, Required: true}}, nil, false)
	body := `{"sku":"a","ſku":"b"}`
	var into struct{ Sku string }
	if err := json.Unmarshal([]byte(body), &into); err != nil || into.Sku != "b" {
		t.Fatalf("encoding/json reads %q (%v): the premise changed", into.Sku, err)
	}
	got := c.Request(httptest.NewRequest("POST", "/", strings.NewReader(body)), "/", []byte(body))
	if g := faultKeys(got); len(g) != 1 || g[0] != "sku body case" {
		t.Errorf("%v", g)
	}
}

// TestHeaderCanonical: a header param declared in any case reads the
// field as Go's server canonicalizes it.
func TestHeaderCanonical(t *testing.T) {
	c := New([]config.Param{{Name: "x-api-version", In: config.InHeader, Type: config.TypeInteger, Required: true}}, nil, false)
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-API-VERSION", "2") // canonical: X-Api-Version
	if got := c.Request(r, "/", nil); got != nil {
		t.Errorf("%v", got)
	}
}

// TestNil: no params, no checker, nothing found.
func TestNil(t *testing.T) {
	c := New(nil, nil, false)
	if c != nil || c.ReadsBody() || c.Request(httptest.NewRequest("GET", "/?a=1", nil), "/", nil) != nil || c.Args(map[string]any{"a": 1}) != nil {
		t.Error("a capability without params is checked")
	}
}

// TestErrorText: the error names every fault.
func TestErrorText(t *testing.T) {
	c := New([]config.Param{{Name: "q", Required: true}, {Name: "limit", Type: config.TypeInteger}}, nil, false)
	fs := c.Request(httptest.NewRequest(http.MethodGet, "/?limit=abc", nil), "/", nil)
	want := `params not as declared: q (query) is required and missing; limit (query) "abc" is not an integer`
	if got := (&Error{fs}).Error(); !strings.HasPrefix(got, want) {
		t.Errorf("%s\nwant %s...", got, want)
	}
	if c.Rule(fs[1]) != "Param: limit (query, integer)" || c.Rule(fs[0]) != "Param: q (query, string, required)" {
		t.Errorf("rules %q %q", c.Rule(fs[0]), c.Rule(fs[1]))
	}
}

func firstCode(fs []Fault) string {
	if len(fs) == 0 {
		return ""
	}
	return fs[0].Code
}

func codes(fs []Fault) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Param+" "+f.Code)
	}
	return out
}

func faultKeys(fs []Fault) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Param+" "+f.In+" "+f.Code)
	}
	return out
}

func urlEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
		}
	}
	return b.String()
}
