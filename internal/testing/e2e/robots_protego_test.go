package e2e_test

import (
	"testing"

	"github.com/agentready/agentready/internal/testing/robotsparsers"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestProtego: Protego (0.2.1, Debian's python3-protego, the robots.txt
// parser of Scrapy) reads the robots.txt agentready generates as
// agentready enforces it, on the pairs the urllib.robotparser comparison
// asks about, for examples/stdlib and every other case of robotsCases;
// none of its deviations (robotsparsers.ProtegoDeviations) reaches a pair of these
// files: agentready names every agent it gives rules in one group (so a
// value Protego takes by substring is of the group the RFC takes), writes
// a group's User-agent lines one after another and its usage lines after
// the rules, every pattern from '/', no "index" and no escape in a query,
// and no path asked holds a '$'.
func TestProtego(t *testing.T) {
	p, missing := robotsparsers.Protego()
	testtools.Need(t, missing)
	n := compareParser(t, p)
	t.Logf("%d agent/path pairs compared in all, every one read as agentready enforces it", n)
}
