package e2e_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/robotsparsers"
	"github.com/agentready/agentready/mcpgateway"
)

// robotsCase is a declaration whose generated robots.txt the comparisons
// with other parsers (urllib.robotparser, robots-parser, Protego) read.
type robotsCase struct {
	name  string
	site  config.Site
	scope string // agentready.WithImplicitAccess, "" for none
	line  string // in the robots.txt: a pattern as declared
}

// robotsCases: the shipped example, a trailing '*' (fixtures.OutdoorSupply
// declares "/admin/*"), and the implicit rules of each scope.
func robotsCases(t *testing.T) []robotsCase {
	t.Helper()
	stdlib, _, err := config.LoadSite("../../../examples/stdlib/site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	implicit := fixtures.OutdoorSupply()
	implicit.Access = config.Access{}
	return []robotsCase{
		{"examples/stdlib", stdlib, "", "\nDisallow: /admin/\n"},
		{"trailing '*' (fixtures.OutdoorSupply)", fixtures.OutdoorSupply(), "", "\nDisallow: /admin/*\n"},
		{"implicit, every automated client", implicit, agentready.ImplicitAllAgents, "\nDisallow: /\n"},
		{"implicit, AI agents only", implicit, agentready.ImplicitAIAgents, "\nDisallow: /\n"},
	}
}

// robotsReading is a case's robots.txt, the pairs to ask about (every
// declared and known agent, an unknown crawler and curl, on every path of
// robotsPaths; agentready is sent a User-Agent with the product token),
// and agentready's verdict on each.
type robotsReading struct {
	body string
	qs   []robotsparsers.Query
	// enforced: agentready serves the pair's path to its User-Agent
	// (Explain's outcome is not DenyPath).
	enforced []bool
	// target: refused to everyone before any rule (an ambiguous target,
	// "//feed"; robots_test.go): no robots.txt line speaks of it, and the
	// comparisons skip it.
	target []bool
	rule   []string // the rule that decided, for messages
}

// readRobots serves c's robots.txt and asks agentready's Explain about
// every pair.
func readRobots(t *testing.T, c robotsCase) robotsReading {
	t.Helper()
	opts := []agentready.Option{agentready.WithDocuments(agentready.Documents{RobotsTxt: true}), agentready.WithLogger(discardLogger()),
		agentready.WithGateway(mcpgateway.Serve)} // examples/stdlib's /mcp
	if c.scope != "" {
		opts = append(opts, agentready.WithImplicitAccess(c.scope))
	}
	m, err := agentready.New(c.site, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	m.Handler(app).ServeHTTP(rec, httptest.NewRequest("GET", "/robots.txt", nil))
	rd := robotsReading{body: rec.Body.String()}
	if !strings.Contains(rd.body, c.line) {
		t.Errorf("robots.txt lacks %q, the pattern as declared:\n%s", c.line, rd.body)
	}
	p, err := policy.Compile(&c.site)
	if err != nil {
		t.Fatal(err)
	}
	agents := map[string]string{"SomeCrawler": "SomeCrawler/1.0 (+https://crawler.example)", "curl": "curl/8.5.0"}
	for _, a := range c.site.Agents {
		if a.Name != "*" {
			agents[a.Name] = a.Name + "/1.0"
		}
	}
	for _, n := range p.Classifier.Names(policy.Known) {
		agents[n] = "Mozilla/5.0 (compatible; " + n + "/1.0)"
	}
	for token, ua := range agents {
		for _, path := range robotsPaths(c.site) {
			r := httptest.NewRequest("GET", path, nil)
			r.Header.Set("User-Agent", ua)
			d := m.Explain(r)
			rd.qs = append(rd.qs, robotsparsers.Query{Agent: token, Path: path})
			rd.enforced = append(rd.enforced, d.Outcome != enforce.DenyPath)
			rd.target = append(rd.target, d.Outcome == enforce.DenyTarget)
			rd.rule = append(rd.rule, d.Rule)
		}
	}
	return rd
}

// compareParser reads every case's robots.txt with a parser and checks
// that it allows exactly the pairs agentready serves, and that none of
// its deviations reaches a pair: a file that reached one would need the
// deviation stated as a model of the parser's verdict (as
// robotsparsers.PyGroups is urllib.robotparser's), not an excuse. It returns the pairs compared.
func compareParser(t *testing.T, p robotsparsers.Parser) int {
	t.Helper()
	total := 0
	for _, c := range robotsCases(t) {
		t.Run(c.name, func(t *testing.T) {
			rd := readRobots(t, c)
			f := robotsparsers.Read(rd.body)
			v := p.Verdicts(t, rd.body, rd.qs)
			compared := 0
			for i, q := range rd.qs {
				if ids := p.Reaching(f, q); ids != nil {
					t.Errorf("%s %s: may be read otherwise by %s's %v", q.Agent, q.Path, p.Name, ids)
				}
				if rd.target[i] {
					continue
				}
				compared++
				if v[i] != rd.enforced[i] {
					t.Errorf("%s %s: %s says %v, agentready enforces %v (%s)", q.Agent, q.Path, p.Name, v[i], rd.enforced[i], rd.rule[i])
				}
			}
			if compared < 2000 {
				t.Errorf("only %d pairs compared", compared)
			}
			total += compared
			t.Logf("%d agent/path pairs compared, each read by %s as agentready enforces it", compared, p.Name)
		})
	}
	return total
}
