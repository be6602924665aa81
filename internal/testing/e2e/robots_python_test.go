package e2e_test

import (
	"os/exec"
	"testing"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestUrllibRobotparser: Python's urllib.robotparser (3.11, the standard
// library) reads the robots.txt agentready generates as agentready
// enforces it, on the shipped example's every agent/path pair; and its
// deviations from RFC 9309 are stated precisely, as pyAllowed, which
// must give its verdict on every pair of every case:
//
//   - D1, wildcards: '*' and '$' are literal characters (RuleLine quotes
//     them to %2A and %24, and matches by str.startswith), where RFC 9309
//     2.2.3 makes '*' any sequence and a final '$' the end of the path;
//   - D2, order: the first matching rule of the group in file order wins
//     (Entry.allowance), where RFC 9309 2.2.2 takes the longest match;
//   - D3, agents: a group applies when its User-agent value, lowercased,
//     is a substring of the agent's product token (Entry.applies_to),
//     where RFC 9309 2.2.1 matches the product token, and the "*" group
//     is read only after every other (default_entry);
//   - D4, empty Disallow: "Disallow:" is read as an Allow of every path,
//     ending the group's reading there.
//
// Only D1 changes a verdict on agentready's files: pyAllowed with RFC
// 9309 matching in D1's place agrees with the enforcement on every pair
// (agentready writes each group's rules longest first, Allow first on
// a tie, one group per agent set, no empty Disallow). D1 is why the
// shipped declarations write "/admin/", not "/admin/*": with the '*',
// urllib.robotparser reads nothing under /admin as disallowed.
func TestUrllibRobotparser(t *testing.T) {
	testtools.Need(t, testtools.Python3())
	// differ: urllib.robotparser's verdict differs from the enforcement's
	// on some pairs of the case (by D1 only); false: on none.
	differ := map[string]bool{
		"examples/stdlib":                       false,
		"trailing '*' (fixtures.OutdoorSupply)": true,
		"implicit, every automated client":      true,
		"implicit, AI agents only":              true,
	}
	for _, c := range robotsCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want, ok := differ[c.name]
			if !ok {
				t.Fatal("no expectation for this case")
			}
			rd := readRobots(t, c)
			py := parserVerdicts(t, exec.Command("python3", "testdata/robotparser/verdicts.py"), rd.body, rd.qs)
			groups := parsePyGroups(rd.body)
			compared, differs := 0, 0
			for i, q := range rd.qs {
				if got := pyAllowed(groups, q.agent, q.path, literalMatch); got != py[i] {
					t.Errorf("%s %s: urllib.robotparser says %v, the statement of its deviations %v", q.agent, q.path, py[i], got)
				}
				if rd.target[i] {
					continue
				}
				compared++
				if rfc := pyAllowed(groups, q.agent, q.path, rfcMatch); rfc != rd.enforced[i] {
					t.Errorf("%s %s: urllib.robotparser's reading with RFC 9309 matching says %v, agentready enforces %v (%s): a deviation besides D1 matters", q.agent, q.path, rfc, rd.enforced[i], rd.rule[i])
				}
				if py[i] != rd.enforced[i] {
					differs++
					if !want {
						t.Errorf("%s %s: urllib.robotparser says %v, agentready enforces %v (%s)", q.agent, q.path, py[i], rd.enforced[i], rd.rule[i])
					}
				}
			}
			if compared < 2000 || want != (differs > 0) {
				t.Errorf("%d pairs compared, %d differ", compared, differs)
			}
			t.Logf("%d agent/path pairs compared, %d read otherwise by urllib.robotparser (D1)", compared, differs)
		})
	}
}
