package agentstxt

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

func TestParseSpecExamples(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		dialect config.Dialect
		site    config.Site
	}{
		{"draft-car Appendix A", appendixA, config.DialectIETFDraft, fixtures.OutdoorSupply()},
		{"v0.1.0 Full Example", fullExample, config.DialectV010, fixtures.AcmeCeramics()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if f.Dialect != tt.dialect {
				t.Errorf("dialect %v, want %v", f.Dialect, tt.dialect)
			}
			if len(f.Warnings) > 0 {
				t.Errorf("warnings: %v", f.Warnings)
			}
			if want := Project(&tt.site, tt.dialect); !reflect.DeepEqual(f.Site, want) {
				t.Errorf("site\n got %+v\nwant %+v", f.Site, want)
			}
		})
	}
}

// TestParseDraftCarDetails spells out what Appendix A parses to, so that
// the round-trip tests cannot pass by both sides being wrong the same way.
func TestParseDraftCarDetails(t *testing.T) {
	f, err := Parse([]byte(appendixA))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Site
	if f.SpecVersion != "1.0" || s.Name != "Outdoor Supply Co." || !s.GeneratedAt.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("header: %q %q %v", f.SpecVersion, s.Name, s.GeneratedAt)
	}
	if len(s.Capabilities) != 2 {
		t.Fatalf("capabilities: %+v", s.Capabilities)
	}
	want := config.Param{Name: "q", In: config.InQuery, Type: config.TypeString, Required: true, Description: "Search query"}
	if got := s.Capabilities[0].Params[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("param %+v, want %+v", got, want)
	}
	if c := s.Capabilities[1]; c.Protocol != config.ProtocolMCP || c.Auth.Type != config.AuthBearerToken ||
		c.Auth.TokenEndpoint != "https://outdoorsupply.example/auth/token" || c.Method != "" {
		t.Errorf("store-assistant: %+v", c)
	}
	if len(s.Agents) != 2 || s.Agents[0].Name != "*" || s.Agents[0].Capabilities != nil ||
		s.Agents[1].RateLimit != config.PerMinute(200) || !reflect.DeepEqual(s.Agents[1].Capabilities, []string{"product-search", "store-assistant"}) {
		t.Errorf("agents: %+v", s.Agents)
	}
	if !reflect.DeepEqual(s.Access, config.Access{Allow: []string{"/api/*", "/mcp"}, Disallow: []string{"/admin/*", "/internal/*"}}) {
		t.Errorf("access: %+v", s.Access)
	}
}

func TestParseOddInput(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		check    func(t *testing.T, f *File)
		warnings []string // substrings, in order; nil: none expected
	}{
		{
			name: "tabs, CRLF, BOM, comments inside blocks, key case",
			src: "\ufeff# agents.txt\r\nSPEC-VERSION: 1.0\r\nsite-name:   Tabby  \r\nSite-Url: https://t.example\r\n\r\n" +
				"capability: a\r\n\tendpoint: https://t.example/a\r\n\t# a comment does not end the block\r\n\r\n\tPROTOCOL: rest\r\n\t\tMethod: post\r\n",
			check: func(t *testing.T, f *File) {
				c := f.Site.Capabilities[0]
				if f.Site.Name != "Tabby" || c.Endpoint != "https://t.example/a" || c.Protocol != config.ProtocolREST || c.Method != "POST" {
					t.Errorf("%+v", f.Site)
				}
			},
		},
		{
			name: "unknown fields are ignored (draft-car 2.5)",
			src:  "Spec-Version: 1.0\nSite-Name: S\nSite-URL: https://s.example\nX-Future: 1\nCapability: a\n  Endpoint: https://s.example/a\n  Protocol: REST\n  Cost: free\nAgent: b\n  Mood: happy\n",
			check: func(t *testing.T, f *File) {
				if len(f.Site.Capabilities) != 1 || len(f.Site.Agents) != 1 {
					t.Errorf("%+v", f.Site)
				}
			},
			warnings: []string{`line 4: unknown field "X-Future"`, `line 8: field "Cost" unknown in a Capability block`, `line 10: field "Mood" unknown in an Agent block`},
		},
		{
			name: "lines without a colon are warnings",
			src:  "Spec-Version: 1.0\nSite-Name: S\nthis is not a field\nSite-URL: https://s.example\n: no key\n",
			check: func(t *testing.T, f *File) {
				if f.Site.URL != "https://s.example" {
					t.Errorf("%+v", f.Site)
				}
			},
			warnings: []string{"line 3: line skipped: not a field (no colon)", "line 5: line skipped: empty field name"},
		},
		{
			name: "duplicate single fields: the first counts",
			src:  "Spec-Version: 1.0\nSite-Name: First\nSite-Name: Second\nSite-URL: https://s.example\nCapability: a\n  Endpoint: https://one.example\n  Endpoint: https://two.example\n  Protocol: REST\n",
			check: func(t *testing.T, f *File) {
				if f.Site.Name != "First" || f.Site.Capabilities[0].Endpoint != "https://one.example" {
					t.Errorf("%+v", f.Site)
				}
			},
			warnings: []string{"line 3: duplicate Site-Name ignored", "line 7: duplicate Endpoint ignored"},
		},
		{
			name: "duplicate blocks are kept and reported",
			src:  "Spec-Version: 1.0\nSite-Name: S\nSite-URL: https://s.example\nCapability: a\n  Endpoint: e\n  Protocol: REST\nCapability: a\n  Endpoint: e\n  Protocol: REST\nAgent: Claude\nAgent: claude\n",
			check: func(t *testing.T, f *File) {
				if len(f.Site.Capabilities) != 2 || len(f.Site.Agents) != 2 {
					t.Errorf("%+v", f.Site)
				}
			},
			warnings: []string{`line 7: duplicate Capability "a" (first on line 4)`, `line 11: duplicate Agent "claude" (first on line 10)`},
		},
		{
			name: "one space is not indentation; block fields outside blocks",
			src:  "Spec-Version: 1.0\nSite-Name: S\nSite-URL: https://s.example\n  Endpoint: https://orphan.example\nCapability: a\n Endpoint: https://s.example/a\n",
			check: func(t *testing.T, f *File) {
				if c := f.Site.Capabilities[0]; c.Endpoint != "" {
					t.Errorf("%+v", c)
				}
			},
			warnings: []string{`line 4: indented "Endpoint" outside a Capability or Agent block`, `line 5: Capability "a": Endpoint missing`, `line 5: Capability "a": Protocol missing`, "line 6: Endpoint is a block field but is not indented"},
		},
		{
			name: "a block without identifier swallows its fields",
			src:  "Spec-Version: 1.0\nSite-Name: S\nSite-URL: https://s.example\nCapability: a\n  Protocol: MCP\n  Endpoint: https://s.example/a\nCapability:\n  Protocol: REST\n  Endpoint: https://evil.example\nAgent:\n  Rate-Limit: 1/second\n",
			check: func(t *testing.T, f *File) {
				if len(f.Site.Capabilities) != 1 || f.Site.Capabilities[0].Protocol != config.ProtocolMCP || f.Site.Agents != nil {
					t.Errorf("%+v", f.Site)
				}
			},
			warnings: []string{"line 7: Capability without an identifier", "line 10: Agent without an identifier"},
		},
		{
			name: "agent capabilities: present and empty means none",
			src:  "Spec-Version: 1.0\nSite-Name: S\nSite-URL: https://s.example\nAgent: a\n  Capabilities:\nAgent: b\n  Capabilities: , x ,,y\nAgent: c\n",
			check: func(t *testing.T, f *File) {
				a := f.Site.Agents
				if a[0].Capabilities == nil || len(a[0].Capabilities) != 0 || !reflect.DeepEqual(a[1].Capabilities, []string{"x", "y"}) || a[2].Capabilities != nil {
					t.Errorf("%#v", a)
				}
			},
		},
		{
			name: "param forms",
			src: "Spec-Version: 1.0\nSite-Name: S\nSite-URL: https://s.example\nCapability: a\n  Endpoint: e\n  Protocol: REST\n" +
				"  Param: q (QUERY , String , Required) - Search (full text) - fast\n" +
				"  Param: id (path, integer)\n" +
				"  Param: loose (body, boolean) no dash\n" +
				"  Param: extra (header, number, required, deprecated)\n" +
				"  Param: bare\n" +
				"  Param: tags (query, array)\n" +
				"  Param: c (cookie, string)\n" +
				"  Param: (query, string)\n" +
				"  Param: open (query\n" +
				"  Param: one (query)\n",
			check: func(t *testing.T, f *File) {
				want := []config.Param{
					{Name: "q", In: config.InQuery, Type: config.TypeString, Required: true, Description: "Search (full text) - fast"},
					{Name: "id", In: config.InPath, Type: config.TypeInteger},
					{Name: "loose", In: config.InBody, Type: config.TypeBoolean, Description: "no dash"},
					{Name: "extra", In: config.InHeader, Type: config.TypeNumber, Required: true},
				}
				if got := f.Site.Capabilities[0].Params; !reflect.DeepEqual(got, want) {
					t.Errorf("params\n got %+v\nwant %+v", got, want)
				}
			},
			warnings: []string{
				`line 9: Param: description without the " - " separator`,
				`line 10: Param: unknown token "deprecated"`,
				"line 11: Param skipped: want",
				`line 12: Param skipped: type "array"`,
				`line 13: Param skipped: location "cookie"`,
				"line 14: Param skipped: missing parameter name",
				`line 15: Param skipped: missing ")"`,
				"line 16: Param skipped: want both a location and a type",
			},
		},
		{
			name: "values: rates, protocols, auth, times",
			src: "Spec-Version: 2.0\nGenerated-At: 2026-02-01T02:00:00.5+02:00\nDeclaration-Type: Robot\nSite-Name: S\nSite-URL: https://s.example\n" +
				"Capability: a\n  Endpoint: e\n  Protocol: gRPC\n  Auth: Magic\n  Rate-Limit: lots\n  Scopes: , ,\n" +
				"Capability: b\n  Endpoint: e\n  Protocol: graphql\n  Auth: API-KEY\n  Rate-Limit: 10/s\n" +
				"Agent: x\n  Rate-Limit: 5/fortnight\n",
			check: func(t *testing.T, f *File) {
				s := f.Site
				if !s.GeneratedAt.Equal(time.Date(2026, 2, 1, 0, 0, 0, 5e8, time.UTC)) || s.GeneratedAt.Location() != time.UTC {
					t.Errorf("GeneratedAt %v", s.GeneratedAt)
				}
				if s.DeclarationType != "Robot" || f.SpecVersion != "2.0" {
					t.Errorf("header %q %q", s.DeclarationType, f.SpecVersion)
				}
				a, b := s.Capabilities[0], s.Capabilities[1]
				if a.Protocol != "gRPC" || a.Auth.Type != "Magic" || !a.RateLimit.IsZero() || a.Auth.Scopes != nil {
					t.Errorf("a %+v", a)
				}
				if b.Protocol != config.ProtocolGraphQL || b.Auth.Type != config.AuthAPIKey || b.RateLimit != config.PerSecond(10) {
					t.Errorf("b %+v", b)
				}
				if !s.Agents[0].RateLimit.IsZero() {
					t.Errorf("agent %+v", s.Agents[0])
				}
			},
			warnings: []string{
				`line 1: Spec-Version "2.0" is not 1.0`,
				`line 3: Declaration-Type "Robot" is not platform or agent`,
				`line 8: Protocol "gRPC" is not one of`,
				`line 9: Auth "Magic" is not one of`,
				`line 10: Rate-Limit "lots" ignored`,
				`line 18: Rate-Limit "5/fortnight" ignored`,
			},
		},
		{
			name: "bad timestamp and empty values",
			src:  "Spec-Version: 1.0\nGenerated-At: yesterday\nSite-Name:\nSite-Name: S\nSite-URL: https://s.example\nAllow:\nOperates-On:\n",
			check: func(t *testing.T, f *File) {
				if !f.Site.GeneratedAt.IsZero() || f.Site.Name != "S" || f.Site.Access.Allow != nil || f.Site.OperatesOn != nil {
					t.Errorf("%+v", f.Site)
				}
			},
			warnings: []string{`line 2: Generated-At "yesterday"`, "line 3: empty Site-Name ignored", "line 6: empty Allow ignored", "line 7: empty Operates-On ignored"},
		},
		{
			name: "control characters and invalid UTF-8 skip the line",
			src:  "Spec-Version: 1.0\nSite-Name: S\rSite-Name: Evil\nSite-Name: S\x00\nSite-Name: \xff\nSite-Name: S\u2028x\nSite-Name: Good\nSite-URL: https://s.example\n# comment with \x00 is still a comment\n",
			check: func(t *testing.T, f *File) {
				if f.Site.Name != "Good" {
					t.Errorf("%+v", f.Site)
				}
			},
			warnings: []string{"line 2: line skipped: control character U+000D", "line 3: line skipped: control character U+0000", "line 4: line skipped: invalid UTF-8", "line 5: line skipped: control character U+2028"},
		},
		{
			name: "a v0.1.0 field in a draft-car file",
			src:  "Spec-Version: 1.0\nSite-Name: S\nSite-URL: https://s.example\nFlow: a → b\n",
			warnings: []string{
				"line 4: Flow is not a draft-car field",
			},
		},
		{
			name:     "draft-car required fields missing",
			src:      "Site-Name: S\n",
			warnings: []string{"Spec-Version missing", "Site-URL missing"},
		},
		{
			name: "v0.1.0 flows",
			src: "Site: S\nURL: https://s.example\nAllow: search\nAllow: cart.add\nAllow: search\n" +
				"Flow-Description: orphan\nFlow: buy -> search , cart.add\nFlow-Description: Buy it\nFlow-Description: again\n" +
				"Flow: peek→search\nFlow: nosteps →\nFlow: noarrow search\nFlow:  → search\n",
			check: func(t *testing.T, f *File) {
				want := []config.Flow{
					{Name: "buy", Steps: []string{"search", "cart.add"}, Description: "Buy it"},
					{Name: "peek", Steps: []string{"search"}},
				}
				if !reflect.DeepEqual(f.Site.Flows, want) {
					t.Errorf("flows %+v", f.Site.Flows)
				}
				if len(f.Site.Capabilities) != 3 {
					t.Errorf("capabilities %+v", f.Site.Capabilities)
				}
			},
			warnings: []string{
				`line 5: duplicate Allow "search" (first on line 3)`,
				"line 6: Flow-Description without a preceding Flow",
				"line 9: duplicate Flow-Description",
				`line 11: Flow "nosteps" skipped: no steps`,
				"line 12: Flow skipped: want",
				"line 13: Flow skipped: empty flow name",
			},
		},
		{
			name: "v0.1.0 values",
			src:  "Site: S\nURL: https://s.example\n  Allow: search\nRate-Limit: 2/second\nSession-TTL: 600\nAudit: TRUE\nAudit-Endpoint: https://s.example/a/:session_id\nSite-Name: S\nGenerated-At: now\n",
			check: func(t *testing.T, f *File) {
				s := f.Site
				if s.RateLimit != config.PerSecond(2) || s.Session.TTL != 600*time.Second || !s.Audit.Enabled ||
					s.Audit.Endpoint != "https://s.example/a/:session_id" || len(s.Capabilities) != 1 {
					t.Errorf("%+v", s)
				}
			},
			warnings: []string{"line 8: Site-Name is not a v0.1.0 field", "line 9: Generated-At is not a v0.1.0 field"},
		},
		{
			name: "v0.1.0 bad values",
			src:  "Site: S\nURL: https://s.example\nAllow: a\nRate-Limit: fast\nSession-TTL: 0s\nSession-TTL: 10s\nAudit: yes\n",
			check: func(t *testing.T, f *File) {
				s := f.Site
				if !s.RateLimit.IsZero() || s.Session.TTL != 0 || s.Audit.Enabled {
					t.Errorf("%+v", s)
				}
			},
			warnings: []string{`line 4: Rate-Limit "fast" ignored`, `line 5: Session-TTL "0s" ignored`, "line 6: duplicate Session-TTL", `line 7: Audit "yes" is not true or false`},
		},
		{
			name:     "v0.1.0 TTL overflow",
			src:      "Site: S\nURL: https://s.example\nAllow: a\nSession-TTL: 9223372036854775807s\n",
			warnings: []string{"line 4: Session-TTL"},
		},
		{
			name:     "v0.1.0 required fields missing",
			src:      "Site: S\n",
			warnings: []string{"URL missing", "no Allow line"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, f)
			}
			if len(f.Warnings) != len(tt.warnings) {
				t.Fatalf("got %d warnings, want %d:\n%s", len(f.Warnings), len(tt.warnings), warningList(f.Warnings))
			}
			for i, w := range f.Warnings {
				if !strings.Contains(w.String(), tt.warnings[i]) {
					t.Errorf("warning %d = %q, want it to contain %q", i, w, tt.warnings[i])
				}
			}
		})
	}
}

func warningList(ws []Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("  " + w.String() + "\n")
	}
	return b.String()
}

func TestParseDetect(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want config.Dialect
		ok   bool
	}{
		{"spec-version", "# x\nSpec-Version: 1.0\n", config.DialectIETFDraft, true},
		{"site-name", "site-name: S\n", config.DialectIETFDraft, true},
		{"site", "Site: S\n", config.DialectV010, true},
		{"url", "url: https://s.example\n", config.DialectV010, true},
		{"first identifying field wins", "URL: https://s.example\nSpec-Version: 1.0\n", config.DialectV010, true},
		{"capability block only", "Allow: /x\nCapability: a\n", config.DialectIETFDraft, true},
		{"flow only", "Allow: search\nFlow: a → b\n", config.DialectV010, true},
		{"allow only is ambiguous", "Allow: /x\n", 0, false},
		{"empty", "", 0, false},
		{"comments only", "# Site: S\n", 0, false},
		{"binary", "\x00\x01\x02", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.src))
			if !tt.ok {
				if !errors.Is(err, ErrUnknownDialect) {
					t.Fatalf("err %v, want ErrUnknownDialect", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Dialect != tt.want {
				t.Errorf("dialect %v, want %v", f.Dialect, tt.want)
			}
		})
	}
}

func TestParseDialectForced(t *testing.T) {
	// Read as draft-car, a v0.1.0 file yields warnings, not an error.
	f, err := ParseDialect([]byte(fullExample), config.DialectIETFDraft)
	if err != nil {
		t.Fatal(err)
	}
	if f.Site.Name != "" || len(f.Site.Access.Allow) != 8 || len(f.Warnings) == 0 {
		t.Errorf("site %+v, %d warnings", f.Site, len(f.Warnings))
	}
	if _, err := ParseDialect([]byte(appendixA), config.Dialect(9)); !errors.Is(err, ErrUnknownDialect) {
		t.Errorf("unknown dialect: err %v", err)
	}
}

func TestParseBounds(t *testing.T) {
	big := make([]byte, MaxSize+1)
	for _, parse := range []func([]byte) (*File, error){
		Parse,
		func(b []byte) (*File, error) { return ParseDialect(b, config.DialectV010) },
	} {
		if _, err := parse(big); !errors.Is(err, ErrTooLarge) {
			t.Errorf("err %v, want ErrTooLarge", err)
		}
	}

	// At the limit, a file of nothing but bad lines keeps its warnings
	// bounded.
	src := "Spec-Version: 1.0\n" + strings.Repeat("x\n", (MaxSize-20)/2)
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != MaxWarnings+1 {
		t.Fatalf("%d warnings, want %d", len(f.Warnings), MaxWarnings+1)
	}
	if last := f.Warnings[MaxWarnings]; last.Line != 0 || !strings.HasSuffix(last.Msg, "more warnings omitted") {
		t.Errorf("last warning %q", last)
	}
}

// TestWarningsQuoteShortly: a warning quotes at most a short prefix of
// what it complains about, cut on a rune boundary.
func TestWarningsQuoteShortly(t *testing.T) {
	key := strings.Repeat("é", 100) // two bytes per rune
	f, err := Parse([]byte("Spec-Version: 1.0\n" + key + ": v\n"))
	if err != nil {
		t.Fatal(err)
	}
	msg := f.Warnings[0].Msg
	want := `unknown field "` + strings.Repeat("é", 32) + `"... ignored`
	if msg != want {
		t.Errorf("warning %q, want %q", msg, want)
	}
	if got := quote("a" + strings.Repeat("é", 40)); got != `"a`+strings.Repeat("é", 31)+`"...` {
		t.Errorf("quote cut inside a rune: %s", got)
	}
}
