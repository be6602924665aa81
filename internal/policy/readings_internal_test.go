package policy

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestQueryInsensitiveRules holds the claim QuerySensitive rests on: when
// no pattern holds '?', '$' or a '*' before its end, a path and the path
// with a query are decided by the same rule, so one match decides both.
func TestQueryInsensitiveRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	segs := []string{"a", "ab", "admin", "api", "x.css", "b"}
	randPath := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString("/" + segs[rng.IntN(len(segs))])
		}
		if rng.IntN(3) == 0 {
			b.WriteString("/")
		}
		return b.String()
	}
	for range 2000 {
		var allow, disallow []string
		for range rng.IntN(5) {
			p := randPath()
			if rng.IntN(2) == 0 {
				p += "*"
			}
			if rng.IntN(2) == 0 {
				allow = append(allow, p)
			} else {
				disallow = append(disallow, p)
			}
		}
		rules, err := CompileRules(allow, disallow)
		if err != nil {
			t.Fatal(err)
		}
		if QuerySensitive(rules) {
			t.Fatalf("%q %q: sensitive", allow, disallow)
		}
		path := randPath()
		for _, q := range []string{"x=1", ".css", "a/admin", "/admin"} {
			r1, ok1 := rules.Match(path)
			r2, ok2 := rules.Match(path + "?" + q)
			if ok1 != ok2 || ok1 && *r1 != *r2 {
				t.Fatalf("allow %q disallow %q: %s decided by %+v, %s?%s by %+v", allow, disallow, path, r1, path, q, r2)
			}
		}
	}
	for _, pats := range [][]string{{"/a?x"}, {"/a$"}, {"/*.css"}, {"/a*b*"}} {
		rules, _ := CompileRules(pats, nil)
		if !QuerySensitive(rules) {
			t.Errorf("%q: not sensitive", pats)
		}
	}
}
