package e2e_test

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// npmDir is where npm ci installs robots-parser (package-lock.json).
const npmDir = "testdata/robots-parser-js"

// npmDeviations are how robots-parser 3.0.1 (Robots.js, read in
// node_modules) reads a robots.txt otherwise than RFC 9309. The rest of
// its reading is the RFC's: a group's User-agent values matched to the
// product token exactly, case-insensitively, after "/version" is cut
// (2.2.1); groups naming one agent merged, "*" read only when none
// names it; '*' and a final '$' as 2.2.3 says, by Google's algorithm;
// the longest pattern wins, Allow on a tie (2.2.2); an empty Disallow
// matches nothing; the query is part of the path matched.
var npmDeviations = []robotsDeviation{
	{"N1", "a record other than User-agent, Allow and Disallow between User-agent lines ends the group's agents (parseRobots' isNoneUserAgentState), where RFC 9309 2.2.4 lets no other record interfere",
		func(f robotsFile, _ robotsQuery) bool { return otherRecordAmongAgents(f) }},
	{"N2", "percent-encodings of unreserved characters are compared as written, in the path and in the patterns (urlEncodeToUpper only uppercases them), where RFC 9309 2.2.2 decodes them first",
		func(f robotsFile, q robotsQuery) bool {
			return escapesUnreserved(q.path) || slices.ContainsFunc(ruleValues(f, false), escapesUnreserved)
		}},
}

func npmVerdicts(t *testing.T, body string, qs []robotsQuery) []bool {
	t.Helper()
	return parserVerdicts(t, exec.Command("node", npmDir+"/verdicts.mjs"), body, qs)
}

// TestNpmRobotsParser: the npm package robots-parser (samclarke's, 3.0.1)
// reads the robots.txt agentready generates as agentready enforces it,
// on the pairs the urllib.robotparser comparison asks about, for
// examples/stdlib and every other case of robotsCases; neither of its
// deviations (npmDeviations) reaches a pair of these files: agentready
// writes a group's User-agent lines one after another, its usage lines
// after the rules, and no escape of an unreserved character.
func TestNpmRobotsParser(t *testing.T) {
	testtools.Need(t, testtools.NodePackage(npmDir, "robots-parser"))
	n := compareParser(t, "robots-parser", npmDeviations, npmVerdicts)
	t.Logf("%d agent/path pairs compared in all, every one read as agentready enforces it", n)
}

// TestNpmRobotsParserDeviations: each of npmDeviations is real, shown on
// a file where robots-parser's verdict is not RFC 9309's.
func TestNpmRobotsParserDeviations(t *testing.T) {
	testtools.Need(t, testtools.NodePackage(npmDir, "robots-parser"))
	checkDeviations(t, "robots-parser", npmDeviations, []robotsDeviationCase{
		// RFC 9309: a and b are one group; robots-parser leaves a
		// without rules.
		{"N1", "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n", "a", "/x", false},
		{"N1", "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n", "a", "/x", false},
		// RFC 9309 2.2.2's table: "/foo/bar/%62%61%7A" matches
		// "/foo/bar/baz".
		{"N2", "User-agent: *\nDisallow: /p\n", "a", "/%70", false},
		{"N2", "User-agent: *\nDisallow: /%62az\n", "a", "/baz", false},
		{"N2", "User-agent: *\nDisallow: /a?q=%70\n", "a", "/a?q=p", false},
	}, npmVerdicts)
}
