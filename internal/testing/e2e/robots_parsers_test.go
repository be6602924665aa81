package e2e_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// robotsQuery is one agent/path pair: the product token robots.txt
// parsers are asked about, the User-Agent agentready is sent, and the
// path.
type robotsQuery struct{ agent, ua, path string }

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
// robotsPaths), and agentready's verdict on each.
type robotsReading struct {
	body string
	qs   []robotsQuery
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
	opts := []agentready.Option{agentready.WithDocuments(agentready.Documents{RobotsTxt: true}), agentready.WithLogger(discardLogger())}
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
			rd.qs = append(rd.qs, robotsQuery{token, ua, path})
			rd.enforced = append(rd.enforced, d.Outcome != enforce.DenyPath)
			rd.target = append(rd.target, d.Outcome == enforce.DenyTarget)
			rd.rule = append(rd.rule, d.Rule)
		}
	}
	return rd
}

// parserVerdicts runs a parser's verdicts script, cmd, once for every
// pair: it reads {"robots": BODY, "queries": [[AGENT, URL], ...]} on
// stdin and prints one JSON boolean a query, "allowed".
func parserVerdicts(t *testing.T, cmd *exec.Cmd, body string, qs []robotsQuery) []bool {
	t.Helper()
	in := struct {
		Robots  string      `json:"robots"`
		Queries [][2]string `json:"queries"`
	}{Robots: body, Queries: [][2]string{}}
	for _, q := range qs {
		in.Queries = append(in.Queries, [2]string{q.agent, "https://outdoorsupply.example" + q.path})
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = bytes.NewReader(b), &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, &stderr)
	}
	var v []bool
	if err := json.Unmarshal(out, &v); err != nil || len(v) != len(qs) {
		t.Fatalf("%s answered %d verdicts for %d queries (%v): %s", cmd, len(v), len(qs), err, out)
	}
	return v
}
