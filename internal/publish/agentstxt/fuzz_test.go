package agentstxt

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/format/linetext"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// FuzzParse: Parse never panics and fails only for the documented reasons;
// whatever it reads, rendering that and reading it again is stable.
func FuzzParse(f *testing.F) {
	f.Add([]byte(appendixA))
	f.Add([]byte(fullExample))
	f.Add([]byte("\ufeffSpec-Version: 1.0\r\nCapability: a\r\n\tParam: q (query, string, required) - x\r\n\tScopes: a,,b\r\nAgent: x\r\n  Capabilities:\r\n"))
	f.Add([]byte("Site: S\nURL: %zz\nAllow: a\nFlow: n -> a, b\nFlow-Description: d\nRate-Limit: 9/second\nSession-TTL: 61\nAudit: true\n"))
	f.Add([]byte("Site-Name: \xff\nCapability:\n  Endpoint: x\nno colon\n: empty\n  Param: (\n"))
	f.Add([]byte("URL: https://a%c2%85b.example\nAudit: true\n"))
	for _, fx := range append(fixtures.All(), handMade()...) {
		for _, d := range dialects {
			if b, err := Render(&fx.Site, d); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrUnknownDialect) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(file.Warnings) > MaxWarnings+1 {
			t.Fatalf("%d warnings", len(file.Warnings))
		}
		// Values the parser kept with a warning (an unknown Protocol, say)
		// are written back as they are and warned about again.
		checkStable(t, &file.Site, file.Dialect, false)
	})
}

// servedAs is the Formats that publish the agents.txt of dialect d (the
// v0.1.0 one with its agents.json, which sessions and audit need).
func servedAs(d config.Dialect) config.Formats {
	f := config.Formats{Dialect: d, Disabled: config.AllDocuments &^ config.DocAgentsTxt}
	if d == config.DialectV010 {
		f.Disabled &^= config.DocAgentsJSON
	}
	return f
}

// checkStable validates s and, when Validate accepts it (Render writes only
// validated sites, and a lenient parse accepts more: a tab inside a value, a
// rate too large for v0.1.0), renders it and reads it back: the file must
// read back as Project(s) and render to the same bytes again; strict: and
// hold no line the parser doubts.
func checkStable(t *testing.T, s *config.Site, d config.Dialect, strict bool) {
	t.Helper()
	if validateAll(s, servedAs(d)) != nil {
		return
	}
	b1, err := Render(s, d)
	if err != nil {
		t.Fatalf("Render of a valid site: %v", err)
	}
	f2, err := ParseDialect(b1, d)
	if err != nil {
		t.Fatalf("rendered file does not parse: %v\n%s", err, b1)
	}
	if want := Project(s, d); !reflect.DeepEqual(f2.Site, want) {
		t.Fatalf("read back\n got %#v\nwant %#v\nfile:\n%s", f2.Site, want, b1)
	}
	for _, w := range f2.Warnings {
		if strict && doubtful(w) {
			t.Fatalf("rendered file has a doubtful line: %v\n%s", w, b1)
		}
	}
	b2, err := Render(&f2.Site, d)
	if err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("render not stable (err %v)\n--- first\n%s--- second\n%s", err, b1, b2)
	}
}

// FuzzRoundTrip builds a declaration from arbitrary strings: Validate
// refuses it or Render writes a file that reads back as Project says. Above
// all, a value holding a line break or control character is always
// refused, and Render, validated or not, never writes one.
func FuzzRoundTrip(f *testing.F) {
	f.Add("Outdoor Supply Co.", "https://outdoorsupply.example", "product-search", "q", "Search query", "/api/*", "claude", "purchase", "cart.add")
	f.Add("a\nAllow: /", "u", "id", "p(x)", "-", " ", "*", "a → b", "x,y")
	f.Add("", "", "", "", "", "", "", "", "")
	f.Add("#", "https://a%c2%85b.example", "#c", "n)", "d - e", "/$", "A", "n->", "s\u2028")
	f.Fuzz(func(t *testing.T, name, url, id, param, desc, allow, agent, flow, step string) {
		s := config.Site{
			Name: name, URL: url, Description: desc,
			Capabilities: []config.Capability{{
				ID: id, Endpoint: url, Description: desc,
				Params: []config.Param{{Name: param, Description: desc, Required: len(desc)%2 == 0}},
			}},
			Access:  config.Access{Allow: []string{allow}},
			Agents:  []config.AgentPolicy{{Name: agent, Capabilities: []string{id}}},
			Flows:   []config.Flow{{Name: flow, Steps: []string{step, id}, Description: desc}},
			Audit:   config.Audit{Enabled: len(name)%2 == 1},
			Session: config.Session{TTL: 0},
		}
		carried := map[config.Dialect][]string{
			config.DialectIETFDraft: {name, url, desc, id, param, allow, agent},
			config.DialectV010:      {name, url, desc, id, flow, step},
		}
		for _, d := range dialects {
			valid := validateAll(&s, servedAs(d)) == nil
			for _, v := range carried[d] {
				if _, bad := linetext.Find(v, false); bad != linetext.OK && valid {
					t.Fatalf("%v: unsafe value %q validated", d, v)
				}
			}
			b, err := Render(&s, d)
			if err == nil {
				if _, bad := linetext.Find(string(bytes.ReplaceAll(b, []byte("\n"), nil)), false); bad != linetext.OK {
					t.Fatalf("%v: output holds a control character:\n%q", d, b)
				}
			}
			checkStable(t, &s, d, true)
		}
	})
}

// doubtful reports a warning about a line as written, as opposed to one
// about a required field the declaration left out.
func doubtful(w Warning) bool {
	return w.Line != 0 && !strings.Contains(w.Msg, "missing (REQUIRED")
}
