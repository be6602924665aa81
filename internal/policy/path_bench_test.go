package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gobwas/glob"
)

// realisticRules is a rule set of n rules shaped like real Access lists:
// a few wildcard rules every path is checked against, and per-section
// rules with distinct literal prefixes.
func realisticRules(n int) *Rules {
	allow := []string{"/", "/*.css$"}
	disallow := []string{"/*.php$", "/*/private/", "/*?sessionid=", "*.pdf$"}
	for i := 0; len(allow)+len(disallow) < n; i++ {
		switch i % 3 {
		case 0:
			disallow = append(disallow, fmt.Sprintf("/section%d/*", i))
		case 1:
			allow = append(allow, fmt.Sprintf("/section%d/public/", i))
		default:
			disallow = append(disallow, fmt.Sprintf("/api/v%d/*.json$", i))
		}
	}
	r, err := CompileRules(allow, disallow)
	if err != nil {
		panic(err)
	}
	return r
}

func benchPaths() []string {
	return []string{
		"/section6/articles/2024/hello-world.html",
		"/section7/public/index.html",
		"/index.php",
		"/about/team",
		"/shop/cart?sessionid=abc123&item=42",
		"/a/b/private/c",
		"/api/v5/users.json",
		"/static/site.css",
	}
}

// BenchmarkMatch measures one path decision. The cost depends on the path
// and on the few rules whose literal prefix the path starts with, not on
// the number of rules.
func BenchmarkMatch(b *testing.B) {
	paths := benchPaths()
	for _, n := range []int{10, 1000} {
		r := realisticRules(n)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				r.Match(paths[i%len(paths)])
			}
		})
	}
}

// BenchmarkMatchWorstCase is an attacker-sized path of MaxPathLen bytes
// against backtracking bait.
func BenchmarkMatchWorstCase(b *testing.B) {
	r := mustRules(b, nil, []string{"/*a*a*a*a*a*b", "/*a*a*a*a*a*b$", "/*" + strings.Repeat("a", 64) + "b"})
	path := "/" + strings.Repeat("a", MaxPathLen-1)
	b.ReportAllocs()
	for b.Loop() {
		r.Match(path)
	}
}

func BenchmarkCanonical(b *testing.B) {
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = Canonical(buf[:0], "/section6/articles/2024/%7Euser/../hello-world.html", "q=go&page=2")
	}
}

// BenchmarkWildcard compares the hand-written matcher with gobwas/glob on
// the tail of a pattern (after its literal prefix), which is the job the
// design card suggested gobwas for. gobwas is given the same semantics: no
// separators (so '*' spans '/'), metacharacters quoted, a trailing '*' for
// prefix matching.
func BenchmarkWildcard(b *testing.B) {
	cases := []struct{ name, pattern, path string }{
		{"typical", "/*/private/", "/shop/items/private/list?x=1"},
		{"anchored", "/*.php$", "/folder/sub/filename.php"},
		{"attack-8KiB", "/*a*a*a*a*a*b", "/" + strings.Repeat("a", MaxPathLen-1)},
	}
	for _, c := range cases {
		prefix, w := compileWildcard(c.pattern)
		rest := c.path[len(prefix):]
		b.Run(c.name+"/hand", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w.match(rest, false)
			}
		})
		g := gobwasGlob(c.pattern)
		b.Run(c.name+"/gobwas", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.Match(c.path)
			}
		})
	}
}

// gobwasGlob compiles a robots pattern with gobwas/glob.
func gobwasGlob(pattern string) *glob.Pattern {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	for i := range parts {
		parts[i] = glob.QuoteMeta(parts[i])
	}
	g := strings.Join(parts, "*")
	if !anchored {
		g += "*"
	}
	return glob.MustCompile(g)
}

// TestWildcardAgreesWithGobwas keeps the benchmark honest: both matchers
// give the same answers.
func TestWildcardAgreesWithGobwas(t *testing.T) {
	patterns := []string{"/*/private/", "/*.php$", "/a*b*c", "/a*b*c$", "/x{y}[z]?\\*", "/**", "/fish*.php"}
	paths := []string{"/", "/a/private/", "/x.php", "/x.php?y", "/abc", "/aXbYcZ", "/x{y}[z]?\\q", "/fish/cat.php?p", "/fishy"}
	for _, p := range patterns {
		prefix, w := compileWildcard(p)
		g := gobwasGlob(p)
		for _, s := range paths {
			want := g.Match(s)
			got := strings.HasPrefix(s, prefix) && w.match(s[len(prefix):], false)
			if got != want {
				t.Errorf("pattern %q path %q: hand %v, gobwas %v", p, s, got, want)
			}
		}
	}
}

// BenchmarkMatchSmall: the pipeline's case, a site with a handful of rules
// (draft-car Appendix A) and a path with a query.
func BenchmarkMatchSmall(b *testing.B) {
	r := mustRules(b, []string{"/api/*", "/mcp"}, []string{"/admin/*", "/internal/*"})
	b.ReportAllocs()
	for b.Loop() {
		r.Match("/api/search?q=tent")
	}
}

// BenchmarkCanonicalQuery: an already canonical path and query, the common
// case, which is copied once.
func BenchmarkCanonicalQuery(b *testing.B) {
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = Canonical(buf[:0], "/api/search", "q=tent")
	}
}
