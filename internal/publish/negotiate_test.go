package publish

import (
	"slices"
	"strings"
	"testing"
)

const (
	v3    = "https://agent-uri.org/profile/v3"
	v4    = "https://agent-uri.org/profile/v4"
	extra = "https://example.com/profiles/planner"
)

func descriptorEntry(t testing.TB) *entry {
	t.Helper()
	e, errs := compile(&Document{
		Name: "d", Paths: []string{"/d"}, ContentType: contentTypeAgentJSON,
		Body: []byte("{}"), Profiles: []string{v3, extra},
	}, "d")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return e
}

func TestAcceptable(t *testing.T) {
	e := descriptorEntry(t)
	tests := []struct {
		name   string
		accept []string // nil: no Accept field
		want   bool
	}{
		{"no Accept", nil, true},
		{"empty Accept", []string{""}, true},
		{"only empty members", []string{" , ,"}, true},
		{"any", []string{"*/*"}, true},
		{"json", []string{"application/json"}, true},
		{"agent+json", []string{"application/agent+json"}, true},
		{"application/*", []string{"application/*"}, true},
		{"case-insensitive type", []string{"Application/Agent+JSON"}, true},
		{"profile", []string{`application/agent+json; profile="` + v3 + `"`}, true},
		{"profile token", []string{`application/agent+json;profile=urn:x`}, false},
		{"second profile", []string{`application/agent+json;profile="` + extra + `"`}, true},
		{"both profiles in one parameter", []string{`application/agent+json; profile="` + v3 + " " + extra + `"`}, true},
		{"one profile of two not served", []string{`application/agent+json; profile="` + v3 + " " + v4 + `"`}, false},
		{"unknown profile", []string{`application/agent+json; profile="` + v4 + `"`}, false},
		{"profile name case-insensitive", []string{`application/agent+json; PROFILE="` + v3 + `"`}, true},
		{"profile value case-sensitive", []string{`application/agent+json; profile="` + strings.ToUpper(v3) + `"`}, false},
		{"empty profile is no profile", []string{`application/agent+json; profile=""`}, true},
		{"escaped profile", []string{`application/agent+json; profile="https://agent-uri.org/profile/\v3"`}, true},
		{"profile with comma in quotes", []string{`application/agent+json; profile="https://x/a,b", text/html`}, false},
		{"unknown profile, any fallback", []string{`application/agent+json; profile="` + v4 + `", */*;q=0.1`}, true},
		{"unknown profile on json too", []string{`application/json; profile="` + v4 + `"`}, false},
		{"unknown profile, json fallback", []string{`application/agent+json; profile="` + v4 + `"`, "application/json"}, true},
		{"q=0 agent+json", []string{"application/agent+json;q=0"}, false},
		{"q=0 beats any", []string{"*/*, application/agent+json;q=0"}, false},
		{"profile range more specific than q=0", []string{`application/agent+json;q=0, application/agent+json;profile="` + v3 + `"`}, true},
		{"profile range q=0", []string{`application/agent+json;profile="` + v3 + `";q=0, */*`}, false},
		{"agent+json q=0 overrides json", []string{"application/json, application/agent+json;q=0"}, false},
		{"json q=0 overrides application/*", []string{"application/*, application/json;q=0.000"}, false},
		{"equal rank takes the largest q", []string{"application/json;q=0, application/json;q=0.5"}, true},
		{"weight with spaces", []string{"application/agent+json ; q=0.5"}, true},
		{"invalid weight ignored", []string{"application/agent+json;q=2"}, false},
		{"invalid weight, other range", []string{"application/agent+json;q=abc, */*"}, true},
		{"html only", []string{"text/html"}, false},
		{"xml only", []string{"application/xml"}, false},
		{"browser", []string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}, true},
		{"malformed range", []string{"agent+json"}, false},
		{"wildcard type with subtype", []string{"*/json"}, false},
		{"several field lines", []string{"text/html", "application/json;q=0.5"}, true},
		{"charset parameter ignored", []string{"application/json; charset=utf-8"}, true},
		{"unterminated quote", []string{`application/agent+json; profile="` + v3}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.acceptable(tt.accept); got != tt.want {
				t.Errorf("acceptable(%q) = %v, want %v", tt.accept, got, tt.want)
			}
		})
	}
}

func BenchmarkAcceptable(b *testing.B) {
	e := descriptorEntry(b)
	for _, c := range []struct{ name, accept string }{
		{"profile", `application/agent+json; profile="` + v3 + `"`},
		{"two-profiles", `application/agent+json; profile="` + v3 + " " + extra + `"`},
		{"browser", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
		{"fast-path", "application/json"},
	} {
		b.Run(c.name, func(b *testing.B) {
			lines := []string{c.accept}
			b.ReportAllocs()
			for b.Loop() {
				if !e.acceptable(lines) {
					b.Fatal("refused")
				}
			}
		})
	}
}

func TestRequestedProfiles(t *testing.T) {
	long := "https://x.example/" + strings.Repeat("a", 300)
	tests := []struct {
		name   string
		accept []string
		want   []string
	}{
		{"none", []string{"application/json"}, nil},
		{"one", []string{`application/agent+json; profile="` + v4 + `"`}, []string{v4}},
		{"list and dedup", []string{`application/agent+json; profile="` + v4 + " " + v3 + `", application/json;profile=` + v4}, []string{v4, v3}},
		{"other types ignored", []string{`text/html;profile="https://h"`}, nil},
		{"escapes resolved", []string{`application/agent+json; profile="a\"b"`}, []string{`a"b`}},
		{"long truncated", []string{`application/agent+json; profile="` + long + `"`}, []string{long[:maxEchoedProfileLen] + "…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := requestedProfiles(tt.accept); !slices.Equal(got, tt.want) {
				t.Errorf("requestedProfiles(%q) = %q, want %q", tt.accept, got, tt.want)
			}
		})
	}
	many := strings.Repeat(`application/json;profile="https://p/`, 1)
	var b strings.Builder
	for i := 0; i < 50; i++ {
		b.WriteString(many + strings.Repeat("x", i) + `",`)
	}
	if got := requestedProfiles([]string{b.String()}); len(got) != maxEchoedProfiles {
		t.Errorf("%d profiles echoed, want at most %d", len(got), maxEchoedProfiles)
	}
}

func TestParseQ(t *testing.T) {
	for in, want := range map[string]int{
		"0": 0, "1": 1000, "0.5": 500, "0.25": 250, "0.125": 125, "1.000": 1000, "1.": 1000, "0.": 0,
		"": -1, "2": -1, "0.1234": -1, "1.5": -1, ".5": -1, "0,5": -1, "-0": -1, "0.5x": -1,
	} {
		got, ok := parseQ(in)
		if want < 0 {
			if ok {
				t.Errorf("parseQ(%q) = %d, want invalid", in, got)
			}
			continue
		}
		if !ok || got != want {
			t.Errorf("parseQ(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
}

// FuzzAcceptable: any Accept is decided without panicking; a range naming
// the descriptor's profile keeps it acceptable whatever follows it, since
// nothing ranks above it and equal ranks take the larger weight; and where
// splitting is unambiguous (printable ASCII without quotes) the one-pass
// parser agrees with referenceAcceptable.
func FuzzAcceptable(f *testing.F) {
	for _, s := range []string{
		"*/*", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		`application/agent+json; profile="` + v4 + `", application/json;q=0`,
		`application/agent+json;q=0;profile="` + v3 + `"`, `"`, `a/b;c="\`, ";;;,,,=", "application/*;q=0.",
		"application/agent+json;profile=" + v3 + ";q=0.5, */*;q=0",
	} {
		f.Add(s)
	}
	e := descriptorEntry(f)
	f.Fuzz(func(t *testing.T, accept string) {
		got := e.acceptable([]string{accept})
		requestedProfiles([]string{accept})
		withProfile := `application/agent+json;profile="` + v3 + `", ` + accept
		if !e.acceptable([]string{withProfile}) {
			t.Errorf("acceptable(%q) = false", withProfile)
		}
		for i := 0; i < len(accept); i++ {
			if c := accept[i]; c != '\t' && (c < ' ' || c > '~' || c == '"' || c == '\\') {
				return
			}
		}
		if want := referenceAcceptable(e, accept); got != want {
			t.Errorf("acceptable(%q) = %v, reference %v", accept, got, want)
		}
	})
}

// referenceAcceptable is acceptable written the obvious way, with
// strings.Split, for Accept values without quoted strings.
func referenceAcceptable(e *entry, accept string) bool {
	bestRank, bestQ, seen := rankNone, 0, false
	for _, member := range strings.Split(accept, ",") {
		if strings.Trim(member, " \t") == "" {
			continue
		}
		seen = true
		parts := strings.Split(member, ";")
		base := mediaRank(strings.Trim(parts[0], " \t"))
		q, ok, profile := 1000, base != rankNone, false
		for _, p := range parts[1:] {
			name, value, _ := strings.Cut(p, "=")
			name, value = strings.Trim(name, " \t"), strings.Trim(value, " \t")
			if !ok {
				continue
			}
			switch {
			case strings.EqualFold(name, "q"):
				q, ok = parseQ(value)
			case strings.EqualFold(name, "profile"):
				for _, uri := range strings.Fields(value) {
					profile = true
					ok = ok && slices.Contains(e.profiles, uri)
				}
			}
		}
		if !ok {
			continue
		}
		rank := base * 2
		if profile {
			rank++
		}
		if rank > bestRank || rank == bestRank && q > bestQ {
			bestRank, bestQ = rank, q
		}
	}
	return !seen || bestRank != rankNone && bestQ > 0
}
