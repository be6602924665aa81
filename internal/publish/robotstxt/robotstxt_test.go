package robotstxt_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sfv "github.com/dunglas/httpsfv"
	"github.com/jimsmart/grobotstxt"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/publish/robotstxt"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

var update = flag.Bool("update", false, "rewrite testdata/*.txt (read the diff before committing)")

// outdoorWithUsage is draft-car Appendix A with usage preferences: no
// training, search yes, and AI input allowed on the product pages.
func outdoorWithUsage() config.Site {
	site := fixtures.OutdoorSupply()
	site.Usage = config.Usage{Train: config.Denied, Search: config.Allowed,
		Paths: []config.PathUsage{{Path: "/products/", AIInput: config.Allowed, Search: config.Allowed}}}
	return site
}

// implicitTemplated is draft-car Appendix A with no Allow or Disallow, a
// templated endpoint, and usage preferences.
func implicitTemplated() config.Site {
	site := outdoorWithUsage()
	site.Access = config.Access{}
	site.Capabilities = append(site.Capabilities, config.Capability{ID: "order-status", Description: "Order status",
		Endpoint: "https://outdoorsupply.example/api/orders/{id}", Method: "GET"})
	return site
}

// withUsage is outdoorWithUsage changed by f.
func withUsage(f func(u *config.Usage)) config.Site {
	site := outdoorWithUsage()
	f(&site.Usage)
	return site
}

func TestGolden(t *testing.T) {
	implicit := fixtures.OutdoorSupply()
	implicit.Access = config.Access{}
	docs := robotstxt.Options{Allow: []string{"/.well-known/agents.txt"}}
	for name, c := range map[string]struct {
		site config.Site
		o    robotstxt.Options
	}{
		"outdoor-supply":     {outdoorWithUsage(), robotstxt.Options{Allow: []string{"/.well-known/agents.txt", "/.well-known/agents.json"}}},
		"implicit":           {implicit, robotstxt.Options{Allow: []string{"/.well-known/agents.txt"}}},
		"implicit-ai":        {implicit, robotstxt.Options{RulesFor: []string{"claude", "GPTBot"}, Allow: []string{"/.well-known/agents.txt"}}},
		"implicit-ai-usage":  {implicitTemplated(), robotstxt.Options{RulesFor: []string{"claude", "GPTBot"}, Allow: []string{"/.well-known/agents.txt"}}},
		"implicit-templated": {implicitTemplated(), robotstxt.Options{Allow: []string{"/.well-known/agents.txt"}}},
		"merged":             {outdoorWithUsage(), robotstxt.Options{Own: []byte("User-agent: Googlebot\nDisallow: /drafts/\nSitemap: https://outdoorsupply.example/sitemap.xml")}},
		// The -07 vocabulary has no ai-use: the /products/ line says search only.
		"usage-vocab-07": {withUsage(func(u *config.Usage) { u.Vocabulary = "aipref-vocab-07" }), docs},
		// ai-use site-wide, and Content Signals' use= level.
		"usage-use": {withUsage(func(u *config.Usage) { u.AIInput, u.Use = config.Denied, "reference" }), docs},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := policy.Compile(&c.site)
			if err != nil {
				t.Fatal(err)
			}
			got, err := robotstxt.Render(p, c.o)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", name+".txt")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("robots.txt differs from %s (go test -update, then read the diff):\n%s", file, got)
			}
		})
	}
}

// TestTooLarge: a file past what every crawler reads is an error.
func TestTooLarge(t *testing.T) {
	p, err := policy.Compile(&[]config.Site{fixtures.OutdoorSupply()}[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := robotstxt.Render(p, robotstxt.Options{Own: []byte(strings.Repeat("# x\n", robotstxt.MaxBytes/4))}); err == nil {
		t.Error("a file over MaxBytes rendered")
	}
}

// TestExactAllow: a discovery document at a path holding '*' or '$' is not
// published as a pattern: crawlers (grobotstxt, Google's matcher) are not
// told that other paths are allowed.
func TestExactAllow(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Access = config.Access{Disallow: []string{"/"}}
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	out, err := robotstxt.Render(p, robotstxt.Options{Allow: []string{"/m*/server-card", "/a$"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "Allow: /m%2A/server-card$\n") || !strings.Contains(string(out), "Allow: /a%24$\n") {
		t.Errorf("exact paths not escaped:\n%s", out)
	}
	for _, path := range []string{"/mXYZ/private/server-card", "/m/server-card", "/a"} {
		if grobotstxt.AgentAllowed(string(out), "Googlebot", "https://x.example"+path) {
			t.Errorf("%s is allowed by:\n%s", path, out)
		}
	}
}

// TestImplicitNeverBroader: for random endpoint sets with no Allow or
// Disallow declared (draft-car 2.6), Google's matcher reading the
// generated file never allows a path the rules refuse, for "*" and for a
// RulesFor group; a path it refuses and the rules admit is an instance of
// a templated endpoint, which the file leaves closed.
func TestImplicitNeverBroader(t *testing.T) {
	segs := []string{"api", "orders", "42", "export", "feed", "{id}", "{tenant}", "x.json", "a*b", "a$", "%7Bid%7D", "caf%C3%A9"}
	rng := rand.New(rand.NewPCG(22, 7))
	path := func(params bool) string {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			s := segs[rng.IntN(len(segs))]
			if !params && strings.HasPrefix(s, "{") {
				s = "42"
			}
			b.WriteString("/" + s)
		}
		return b.String()
	}
	compared, narrower := 0, 0
	for range 200 {
		site := config.Site{Name: "x", URL: "https://x.example"}
		for i := range 1 + rng.IntN(4) {
			ep := path(true)
			site.Capabilities = append(site.Capabilities, config.Capability{ID: fmt.Sprint("c", i), Endpoint: "https://x.example" + ep, Method: "GET"})
		}
		p, err := policy.Compile(&site)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []robotstxt.Options{{}, {RulesFor: []string{"GPTBot"}}} {
			body, err := robotstxt.Render(p, o)
			if err != nil {
				t.Fatal(err)
			}
			for range 50 {
				raw := path(false)
				if rng.IntN(3) == 0 {
					raw += "?q=1"
				}
				rawPath, rawQuery, _ := strings.Cut(raw, "?")
				target := string(policy.Canonical(nil, rawPath, rawQuery))
				rule, ok := p.Rules.Match(target)
				admitted := ok && rule.Allow
				robots := grobotstxt.AgentAllowed(string(body), "GPTBot", "https://x.example"+target)
				switch {
				case robots && !admitted:
					t.Fatalf("%s: robots.txt allows what the rules refuse:\n%s", target, body)
				case !robots && admitted && !strings.Contains(rule.Pattern, "{"):
					t.Fatalf("%s: robots.txt refuses the literal endpoint %s:\n%s", target, rule.Pattern, body)
				case !robots && admitted:
					narrower++
				}
				compared++
			}
		}
	}
	t.Logf("%d verdicts compared, %d narrower (templated endpoints)", compared, narrower)
}

// TestUsageLinesRead: a crawler processing the file as
// draft-ietf-aipref-attach-05 3.3 says (the label, then a path when the
// value starts with "/", then the statement of preference, the longest
// path prefix winning) and reading the statement as an RFC 9651
// Dictionary finds, for each path, the preference the header of that path
// carries, in either vocabulary; and the Content-Signal line carries the
// use= level.
func TestUsageLinesRead(t *testing.T) {
	for _, vocab := range []string{"", "aipref-vocab-07"} {
		site := withUsage(func(u *config.Usage) { u.Vocabulary, u.AIInput, u.Use = vocab, config.Denied, "full" })
		p, err := policy.Compile(&site)
		if err != nil {
			t.Fatal(err)
		}
		body, err := robotstxt.Render(p, robotstxt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rules := map[string]string{} // path ("" for none) -> statement
		signal := ""
		for _, line := range strings.Split(string(body), "\n") {
			label, value, ok := strings.Cut(line, ":")
			value, _, _ = strings.Cut(strings.TrimSpace(value), "#")
			switch strings.TrimSpace(label) {
			case "Content-Usage":
				path := ""
				if ok && strings.HasPrefix(value, "/") {
					path, value, _ = strings.Cut(value, " ")
				}
				if _, err := sfv.UnmarshalDictionary([]string{value}); err != nil {
					t.Errorf("%q: %q is not a Dictionary: %v", vocab, value, err)
				}
				rules[path] = strings.TrimSpace(value)
			case "Content-Signal":
				signal = value
			}
		}
		for _, path := range []string{"/", "/about", "/products/", "/products/tent"} {
			best := ""
			for pat := range rules {
				if strings.HasPrefix(path, pat) && len(pat) >= len(best) {
					best = pat
				}
			}
			if got, want := rules[best], p.Usage.Match(path).ContentUsage; got != want {
				t.Errorf("%q %s: robots.txt says %q, the header %q", vocab, path, got, want)
			}
		}
		if !strings.HasSuffix(signal, ", use=full") || !strings.Contains(signal, "ai-input=no") {
			t.Errorf("%q: Content-Signal %q", vocab, signal)
		}
		if hasAIUse := strings.Contains(string(body), "ai-use="); hasAIUse != (vocab == "") {
			t.Errorf("%q: ai-use in the file: %v\n%s", vocab, hasAIUse, body)
		}
	}
}
