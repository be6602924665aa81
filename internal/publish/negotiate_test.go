package publish

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
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

func TestAcceptableAllocs(t *testing.T) {
	e := descriptorEntry(t)
	for _, accept := range [][]string{
		nil,
		{"*/*"},
		{"application/json"},
		{contentTypeAgentJSON},
		{`application/agent+json; profile="` + v3 + `"`},
		{`application/agent+json; profile="` + v3 + " " + extra + `"`},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
		{`application/agent+json; profile="` + v4 + `"`}, // refused, still no allocation to decide
	} {
		if n := testing.AllocsPerRun(100, func() { e.acceptable(accept) }); n != 0 {
			t.Errorf("acceptable(%q): %v allocations", accept, n)
		}
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

func TestMatchETag(t *testing.T) {
	const etag = `"abc123"`
	tests := []struct {
		name         string
		lines        []string
		weak, strong bool // want for If-None-Match, If-Match
	}{
		{"exact", []string{etag}, true, true},
		{"weak", []string{`W/"abc123"`}, true, false},
		{"star", []string{"*"}, true, true},
		{"list", []string{`"x", "y",` + etag}, true, true},
		{"list with empty members", []string{` , ,` + etag + `,`}, true, true},
		{"comma inside a tag", []string{`"abc,123", "z"`}, false, false},
		{"second field line", []string{`"x"`, `W/` + etag}, true, false},
		{"other", []string{`"abc1234"`}, false, false},
		{"unquoted", []string{`abc123`}, false, false},
		{"garbage then match", []string{`abc, ` + etag}, true, true},
		{"unterminated", []string{`"abc123`}, false, false},
		{"lower-case weak prefix is not weak", []string{`w/"abc123"`}, false, false},
		{"empty", []string{""}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchETag(tt.lines, etag, true); got != tt.weak {
				t.Errorf("weak comparison = %v, want %v", got, tt.weak)
			}
			if got := matchETag(tt.lines, etag, false); got != tt.strong {
				t.Errorf("strong comparison = %v, want %v", got, tt.strong)
			}
		})
	}
}

func TestParseHTTPDate(t *testing.T) {
	want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC).Unix()
	tests := []struct {
		in string
		ok bool
	}{
		{"Sun, 06 Nov 1994 08:49:37 GMT", true},  // IMF-fixdate
		{"Sunday, 06-Nov-94 08:49:37 GMT", true}, // RFC 850
		{"Sun Nov  6 08:49:37 1994", true},       // asctime
		{"Sun, 06 Nov 1994 08:49:37 UTC", false},
		{"Sun, 31 Apr 1994 08:49:37 GMT", false},
		{"Sun, 06 Nov 1994 24:49:37 GMT", false},
		{"Xyz, 06 Nov 1994 08:49:37 GMT", false},
		{"Sun, 06 Nox 1994 08:49:37 GMT", false},
		{"Sun, 0a Nov 1994 08:49:37 GMT", false},
		{"Sun, 06 Nov 1994 08:49:37 GMT ", false},
		{"", false},
		{"1994-11-06T08:49:37Z", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseHTTPDate(tt.in)
			if ok != tt.ok || ok && got != want {
				t.Errorf("parseHTTPDate(%q) = %d, %v; want %d, %v", tt.in, got, ok, want, tt.ok)
			}
		})
	}
	if n := testing.AllocsPerRun(100, func() { parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") }); n != 0 {
		t.Errorf("IMF-fixdate: %v allocations", n)
	}
}

// FuzzAcceptable: any Accept is decided without panicking; a range naming
// the descriptor's profile keeps it acceptable whatever follows it, since
// nothing ranks above it and equal ranks take the larger weight; and where
// splitting is unambiguous (printable ASCII without quotes) the one-pass
// scanner agrees with referenceAcceptable.
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
			case equalFoldASCII(name, "q"):
				q, ok = parseQ(value)
			case equalFoldASCII(name, "profile"):
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

// FuzzMatchETag: no panic; a list that starts with the entity-tag always
// matches; and so does one that ends with it after members without quotes,
// which are skipped to the next comma. (After a stray quote a malformed list
// has no defined reading.)
func FuzzMatchETag(f *testing.F) {
	for _, s := range []string{`"a"`, `W/"a", "b"`, "*", `"`, `W/`, `,,"x,y"`, `0","`} {
		f.Add(s)
	}
	const etag = `"0123abcd"`
	f.Fuzz(func(t *testing.T, list string) {
		for _, weak := range []bool{true, false} {
			matchETag([]string{list}, etag, weak)
			if first := etag + ", " + list; !matchETag([]string{first}, etag, weak) {
				t.Errorf("%q does not match %s (weak %v)", first, etag, weak)
			}
			if strings.Contains(list, `"`) {
				continue
			}
			if last := list + ", " + etag; !matchETag([]string{last}, etag, weak) {
				t.Errorf("%q does not match %s (weak %v)", last, etag, weak)
			}
		}
	})
}

// FuzzParseHTTPDate holds parseHTTPDate, whose IMF-fixdate path is
// hand-written, against http.ParseTime.
func FuzzParseHTTPDate(f *testing.F) {
	for _, s := range []string{"Sun, 06 Nov 1994 08:49:37 GMT", "Mon, 29 Feb 2016 23:59:59 GMT",
		"Tue, 29 Feb 2015 00:00:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "sun, 06 nov 1994 08:49:37 GMT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseHTTPDate(s)
		ref, err := http.ParseTime(s)
		if ok != (err == nil) || ok && got != ref.Unix() {
			t.Errorf("parseHTTPDate(%q) = %d, %v; http.ParseTime: %v, %v", s, got, ok, ref, err)
		}
	})
}
