package e2e_test

import (
	"testing"

	"github.com/agentready/agentready/internal/testing/robotsparsers"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestNpmRobotsParser: the npm package robots-parser (samclarke's, 3.0.1)
// reads the robots.txt agentready generates as agentready enforces it,
// on the pairs the urllib.robotparser comparison asks about, for
// examples/stdlib and every other case of robotsCases; neither of its
// deviations (robotsparsers.NpmDeviations) reaches a pair of these
// files: agentready writes a group's User-agent lines one after another,
// its usage lines after the rules, and no escape of an unreserved
// character.
func TestNpmRobotsParser(t *testing.T) {
	p, missing := robotsparsers.RobotsParser()
	testtools.Need(t, missing)
	n := compareParser(t, p)
	t.Logf("%d agent/path pairs compared in all, every one read as agentready enforces it", n)
}
