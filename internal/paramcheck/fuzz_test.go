package paramcheck

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/agentready/agentready/config"
)

// fuzzParams declares one param of every type in every location, with
// bounds and enums.
var fuzzParams = []config.Param{
	{Name: "q", Required: true, Enum: []any{"a", 1, true}},
	{Name: "n", Type: config.TypeInteger, Min: bound(-5), Max: bound(5)},
	{Name: "f", Type: config.TypeNumber, Enum: []any{0.5, "1e3"}},
	{Name: "b", Type: config.TypeBoolean},
	{Name: "arr", Type: config.TypeArray, Enum: []any{"x", 2}},
	{Name: "obj", Type: config.TypeObject},
	{Name: "id", In: config.InPath, Type: config.TypeInteger, Required: true},
	{Name: "X-N", In: config.InHeader, Type: config.TypeInteger, Max: bound(0)},
	{Name: "X-L", In: config.InHeader, Type: config.TypeArray},
	{Name: "qty", In: config.InBody, Type: config.TypeInteger, Required: true},
	{Name: "tags", In: config.InBody, Type: config.TypeArray, Enum: []any{"t"}},
	{Name: "meta", In: config.InBody, Type: config.TypeObject},
	{Name: "ok", In: config.InBody, Type: config.TypeBoolean},
}

// FuzzRequest: no target, header or body makes the checker panic, and
// every fault names a location and a known code.
func FuzzRequest(f *testing.F) {
	c := New(fuzzParams, []string{"", "api", "{id}"}, true)
	for _, s := range [][4]string{
		{"/api/1", "q=a&n=1&n=2;n=9&arr=x&arr=2&obj[a]=1", "X-N: 1", `{"qty":1,"QTY":2,"qty":1e2,"tags":["t",1],"meta":[]}`},
		{"/api/x.json/", "q=%zz&f=NaN&b=True&li%6Dit", "X_N: 1", `{"qty":`},
		{"/API/-0", "", "", `[1]`},
		{"/api/1", "q=1", "Content-Type: application/x-www-form-urlencoded", `qty=1&qty=2&tags=t`},
		{"/api/1", "q=1", "Content-Type: multipart/form-data", "\xff\xfe"},
		{"/api/99999999999999999999999999", "f=1e999999999&n=-1e-999999", "X-L: a, b,,c", `{"qty":-0,"ok":null} `},
	} {
		f.Add(s[0], s[1], s[2], []byte(s[3]))
	}
	f.Fuzz(func(t *testing.T, path, query, header string, body []byte) {
		r := &http.Request{Method: "POST", URL: &url.URL{Path: path, RawQuery: query}, Header: http.Header{}}
		if k, v, ok := bytes.Cut([]byte(header), []byte(":")); ok {
			r.Header[string(k)] = []string{string(bytes.TrimSpace(v))}
		}
		checkFaults(t, c.Request(r, path, body))
		var args map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&args) == nil {
			checkFaults(t, c.Args(args))
		}
		if json.Unmarshal(body, &args) == nil {
			checkFaults(t, c.Args(args))
		}
	})
}

func checkFaults(t *testing.T, fs []Fault) {
	t.Helper()
	for _, f := range fs {
		switch f.Code {
		case CodeMissing, CodeType, CodeEnum, CodeMin, CodeMax, CodeRepeated, CodeCase, CodeBadEscape, CodeBody:
		default:
			t.Errorf("fault %+v: unknown code", f)
		}
		if f.In == "" || f.Detail == "" {
			t.Errorf("fault %+v names no location or says nothing", f)
		}
	}
	_ = (&Error{fs}).Error()
}
