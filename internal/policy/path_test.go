package policy

import (
	"strings"
	"testing"
	"time"
)

// decision is what a rule set says about a path: "allow", "disallow" or
// "none" (no rule matches).
func decision(t *testing.T, r *Rules, rawPath string) string {
	t.Helper()
	path, query, _ := strings.Cut(rawPath, "?")
	rule, ok := r.Match(string(Canonical(nil, path, query)))
	switch {
	case !ok:
		return "none"
	case rule.Allow:
		return "allow"
	}
	return "disallow"
}

func mustRules(t testing.TB, allow, disallow []string) *Rules {
	t.Helper()
	r, err := CompileRules(allow, disallow)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMatchPatternExamples: one pattern, paths it must and must not match.
// The cases restate Google's "URL matching based on path values" examples
// and RFC 9309 2.2.2/2.2.3 in our own words.
func TestMatchPatternExamples(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{"/", []string{"/", "/anything", "/a/b?c=d"}, nil},
		{"/*", []string{"/", "/anything", "/a/b?c=d"}, nil},
		{"/$", []string{"/"}, []string{"/page", "/?q=1"}},
		{"/fish",
			[]string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish*",
			[]string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish/",
			[]string{"/fish/", "/fish/?id=anything", "/fish/salmon.htm"},
			[]string{"/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"}},
		{"/*.php",
			[]string{"/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "/folder/any.php.file.html", "/filename.php/"},
			[]string{"/", "/windows.PHP"}},
		{"/*.php$",
			[]string{"/filename.php", "/folder/filename.php"},
			[]string{"/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"}},
		{"/fish*.php",
			[]string{"/fish.php", "/fishheads/catfish.php?parameters"},
			[]string{"/Fish.PHP"}},
		{"*.php$", []string{"/a.php", "/b/c.php"}, []string{"/a.php?x"}},
		{"/this/path/exactly$", []string{"/this/path/exactly"}, []string{"/this/path/exactly/", "/this/path/exactlyx"}},
		{"/this/*/example", []string{"/this/a/example", "/this/a/b/example/c"}, []string{"/this/example"}},
		// RFC 9309 2.2.3: a literal '*' in a URL is matched by %2A.
		{"/path/file-with-a-%2A.html", []string{"/path/file-with-a-*.html", "/path/file-with-a-%2a.html"}, []string{"/path/file-with-a-x.html"}},
		// RFC 9309 2.2.2: octets outside ASCII are percent-encoded first.
		{"/foo/bar/ツ", []string{"/foo/bar/%E3%83%84", "/foo/bar/%e3%83%84"}, []string{"/foo/bar/"}},
		{"/foo/bar?baz=quz", []string{"/foo/bar?baz=quz"}, []string{"/foo/bar", "/foo/bar?baz=other"}},
		// Patterns are canonical too.
		{"/%61dmin", []string{"/admin", "/%61dmin/x"}, []string{"/Admin"}},
		{"/a*b*c$", []string{"/abc", "/aXbYc", "/a/b/c", "/abcbc"}, []string{"/abcd", "/acb"}},
		{"/a**b", []string{"/ab", "/axxb"}, []string{"/a"}},
		{"/a*", []string{"/a", "/ab"}, []string{"/"}},
	}
	for _, tt := range tests {
		r := mustRules(t, nil, []string{tt.pattern})
		for _, p := range tt.match {
			t.Run(tt.pattern+" matches "+p, func(t *testing.T) {
				if got := decision(t, r, p); got != "disallow" {
					t.Errorf("got %s", got)
				}
			})
		}
		for _, p := range tt.noMatch {
			t.Run(tt.pattern+" does not match "+p, func(t *testing.T) {
				if got := decision(t, r, p); got != "none" {
					t.Errorf("got %s", got)
				}
			})
		}
	}
}

// TestMatchPrecedence: the longest pattern wins, Allow wins a tie (Google's
// "Order of precedence for rules", RFC 9309 2.2.2 and 5.2).
func TestMatchPrecedence(t *testing.T) {
	tests := []struct {
		name            string
		allow, disallow []string
		path, want      string
	}{
		{"longer allow beats shorter disallow", []string{"/p"}, []string{"/"}, "/page", "allow"},
		{"equal patterns: allow wins", []string{"/folder"}, []string{"/folder"}, "/folder/page", "allow"},
		{"longer disallow wildcard beats allow", []string{"/page"}, []string{"/*.htm"}, "/page.htm", "disallow"},
		{"equal length different patterns: allow wins", []string{"/page"}, []string{"/*.ph"}, "/page.php5", "allow"},
		{"anchored root allowed", []string{"/$"}, []string{"/"}, "/", "allow"},
		{"anchored root does not cover pages", []string{"/$"}, []string{"/"}, "/page.htm", "disallow"},
		{"RFC 9309 longest match", []string{"/example/page/"}, []string{"/example/page/disallowed.gif"}, "/example/page/disallowed.gif", "disallow"},
		{"RFC 9309 longest match, other file", []string{"/example/page/"}, []string{"/example/page/disallowed.gif"}, "/example/page/ok.gif", "allow"},
		{"no rule matches", []string{"/a"}, []string{"/b"}, "/c", "none"},
		{"no rules", nil, nil, "/", "none"},
		{"pattern length counts the star", []string{"/ab"}, []string{"/a*"}, "/abc", "allow"},
		{"pattern length counts the anchor", []string{"/ab"}, []string{"/ab$"}, "/ab", "disallow"},
		{"deep literal beats root wildcard", []string{"/*.php$"}, []string{"/private/"}, "/private/x.php", "disallow"},
		{"root wildcard beats short literal", []string{"/a"}, []string{"/*.php$"}, "/a/x.php", "disallow"},
		{"query visible to rules", []string{"/"}, []string{"/*?session="}, "/cart?session=1", "disallow"},
		{"star spans slashes", []string{"/"}, []string{"/*/private/"}, "/a/b/private/c", "disallow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRules(t, tt.allow, tt.disallow)
			if got := decision(t, r, tt.path); got != tt.want {
				t.Errorf("%s with allow %q disallow %q = %s, want %s", tt.path, tt.allow, tt.disallow, got, tt.want)
			}
		})
	}
}

// TestMatchCanonicalBypass: every spelling of /admin that a router routes
// to /admin is caught by a rule for /admin; the spellings routers disagree
// on are refused by CheckTarget before any rule is consulted.
func TestMatchCanonicalBypass(t *testing.T) {
	r := mustRules(t, []string{"/"}, []string{"/admin"})
	for _, p := range []string{"/admin", "/%61dmin", "/adm%69n/x", "/admin%2Fx"} {
		t.Run(p, func(t *testing.T) {
			if got := decision(t, r, p); got != "disallow" {
				t.Errorf("%s = %s, want disallow", p, got)
			}
		})
	}
	for _, p := range []string{
		"//admin", "/./admin", "/x/../admin", "/x/%2e%2e/admin", "/x/..%2fadmin", "/x/..%2Fadmin",
		"/admin/../admin/", "/../../admin", "/%2fadmin", "/x/.%2e/admin", "/%2E/admin", "/x/y/../../admin/panel",
	} {
		if _, err := NormalPath(p); err == nil {
			t.Errorf("NormalPath(%q) accepts it", p)
		}
	}
}

func TestMatchReturnsRule(t *testing.T) {
	r := mustRules(t, []string{"/a", "/api/*"}, []string{"/api/private", "/%61pi/xy"})
	rule, ok := r.Match("/api/private/key")
	if !ok || rule.Allow || rule.Index != 0 || rule.Pattern != "/api/private" {
		t.Fatalf("got %+v, %v", rule, ok)
	}
	rule, ok = r.Match("/api/xyz")
	if !ok || rule.Allow || rule.Index != 1 || rule.Pattern != "/api/xy" {
		t.Fatalf("got %+v, %v", rule, ok)
	}
	rule, ok = r.Match("/api/public")
	if !ok || !rule.Allow || rule.Index != 1 {
		t.Fatalf("got %+v, %v", rule, ok)
	}
	if got := r.Len(); got != 4 {
		t.Fatalf("Len = %d", got)
	}
	list := r.List()
	if list[0].Pattern != "/api/private" || list[len(list)-1].Pattern != "/a" {
		t.Fatalf("List not in precedence order: %+v", list)
	}
	var nilRules *Rules
	if _, ok := nilRules.Match("/"); ok || nilRules.Len() != 0 || nilRules.List() != nil {
		t.Fatal("nil Rules must have no rules")
	}
}

func TestCompileRulesErrors(t *testing.T) {
	tests := []struct {
		name, pattern, want string
	}{
		{"empty", "", "empty pattern"},
		{"no leading slash", "admin", "must start with"},
		{"dollar in the middle", "/a$b", "before its end"},
		{"space", "/a b", "whitespace"},
		{"tab", "/a\tb", "control character"},
		{"newline", "/a\n", "control character"},
		{"NUL", "/a\x00", "control character"},
		{"DEL", "/a\x7f", "control character"},
		{"fragment", "/a#b", "#"},
		{"invalid escape", "/a%zz", "escape"},
		{"invalid UTF-8", "/a\xff", "UTF-8"},
		{"too long", "/" + strings.Repeat("a", MaxPathLen), "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileRules(nil, []string{"/ok", tt.pattern})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "disallow[1]") {
				t.Fatalf("error %v, want one naming disallow[1] and %q", err, tt.want)
			}
		})
	}
	t.Run("every problem reported", func(t *testing.T) {
		_, err := CompileRules([]string{"x", "/ok"}, []string{"", "/a$b"})
		if err == nil {
			t.Fatal("no error")
		}
		for _, want := range []string{"allow[0]", "disallow[0]", "disallow[1]"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %s", err, want)
			}
		}
	})
}

// TestMatchLongPath: a path longer than MaxPathLen is matched on its
// first MaxPathLen bytes; '$' rules cannot match it.
func TestMatchLongPath(t *testing.T) {
	long := "/admin/" + strings.Repeat("a", MaxPathLen) + ".php"
	r := mustRules(t, []string{"/*.php$"}, []string{"/admin/"})
	rule, ok := r.Match(long)
	if !ok || rule.Allow {
		t.Fatalf("prefix rule must still apply: %+v %v", rule, ok)
	}
	r = mustRules(t, nil, []string{"/*.php$", "/admin$"})
	if rule, ok := r.Match(long); ok {
		t.Fatalf("anchored rule matched a truncated path: %+v", rule)
	}
}

// TestMatchWorstCase: wildcard matching is linear, not backtracking.
func TestMatchWorstCase(t *testing.T) {
	path := "/" + strings.Repeat("a", MaxPathLen-1)
	var pats []string
	for i := range 200 {
		pats = append(pats, "/*a*a*a*a*a*b"+strings.Repeat("*a", i%8), "*a*a*a*a*a*a*b$", "/*"+strings.Repeat("a", 64+i)+"b")
	}
	r := mustRules(t, nil, pats)
	start := time.Now()
	if _, ok := r.Match(path); ok {
		t.Fatal("no pattern should match")
	}
	// 600 rules × 8 KiB of scanning is well under a few milliseconds; a
	// backtracking matcher would not finish.
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("worst case took %v", d)
	}
}

func TestMatchAllocs(t *testing.T) {
	r := realisticRules(1000)
	paths := benchPaths()
	allocs := testing.AllocsPerRun(100, func() {
		for _, p := range paths {
			r.Match(p)
		}
	})
	if allocs != 0 {
		t.Fatalf("Match allocates %v times", allocs)
	}
}
