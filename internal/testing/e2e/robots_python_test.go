package e2e_test

import (
	"testing"

	"github.com/agentready/agentready/internal/testing/robotsparsers"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestUrllibRobotparser: Python's urllib.robotparser (3.11, the standard
// library) reads the robots.txt agentready generates as agentready
// enforces it, on the shipped example's every agent/path pair; and its
// deviations from RFC 9309 (D1 to D4) are stated precisely, as
// robotsparsers.PyGroups, which must give its verdict on every pair of
// every case.
//
// Only D1 changes a verdict on agentready's files: PyGroups with RFC
// 9309 matching in D1's place agrees with the enforcement on every pair
// (agentready writes each group's rules longest first, Allow first on
// a tie, one group per agent set, no empty Disallow). D1 is why the
// shipped declarations write "/admin/", not "/admin/*": with the '*',
// urllib.robotparser reads nothing under /admin as disallowed.
func TestUrllibRobotparser(t *testing.T) {
	urllib, missing := robotsparsers.Urllib()
	testtools.Need(t, missing)
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
			py := urllib.Verdicts(t, rd.body, rd.qs)
			groups := robotsparsers.ReadPy(rd.body)
			compared, differs := 0, 0
			for i, q := range rd.qs {
				if got := groups.Allowed(q.Agent, q.Path, false); got != py[i] {
					t.Errorf("%s %s: urllib.robotparser says %v, the statement of its deviations %v", q.Agent, q.Path, py[i], got)
				}
				if rd.target[i] {
					continue
				}
				compared++
				if rfc := groups.Allowed(q.Agent, q.Path, true); rfc != rd.enforced[i] {
					t.Errorf("%s %s: urllib.robotparser's reading with RFC 9309 matching says %v, agentready enforces %v (%s): a deviation besides D1 matters", q.Agent, q.Path, rfc, rd.enforced[i], rd.rule[i])
				}
				if py[i] != rd.enforced[i] {
					differs++
					if !want {
						t.Errorf("%s %s: urllib.robotparser says %v, agentready enforces %v (%s)", q.Agent, q.Path, py[i], rd.enforced[i], rd.rule[i])
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
