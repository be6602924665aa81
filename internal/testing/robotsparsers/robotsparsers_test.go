package robotsparsers

import (
	"slices"
	"testing"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestNpmRobotsParserDeviations: each of NpmDeviations is real, shown on
// a file where robots-parser's verdict is not RFC 9309's.
func TestNpmRobotsParserDeviations(t *testing.T) {
	p, missing := RobotsParser()
	testtools.Need(t, missing)
	p.checkDeviations(t, []deviationCase{
		// RFC 9309: a and b are one group; robots-parser leaves a
		// without rules.
		{"N1", "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n", "a", "/x", false},
		{"N1", "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n", "a", "/x", false},
		// RFC 9309 2.2.2's table: "/foo/bar/%62%61%7A" matches
		// "/foo/bar/baz".
		{"N2", "User-agent: *\nDisallow: /p\n", "a", "/%70", false},
		{"N2", "User-agent: *\nDisallow: /%62az\n", "a", "/baz", false},
		{"N2", "User-agent: *\nDisallow: /a?q=%70\n", "a", "/a?q=p", false},
	})
}

// TestProtegoDeviations: each of ProtegoDeviations is real, shown on a
// file where Protego's verdict is not RFC 9309's.
func TestProtegoDeviations(t *testing.T) {
	p, missing := Protego()
	testtools.Need(t, missing)
	p.checkDeviations(t, []deviationCase{
		// RFC 9309: ClaudeBot has no group of its own, so "*"'s or none.
		{"P1", "User-agent: bot\nDisallow: /\n", "ClaudeBot", "/x", true},
		{"P1", "User-agent: *\nAllow: /\n\nUser-agent: claude\nDisallow: /\n", "ClaudeBot", "/x", true},
		// RFC 9309: a and b are one group; Protego leaves a without
		// rules.
		{"P2", "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n", "a", "/x", false},
		{"P2", "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n", "a", "/x", false},
		{"P3", "User-agent: *\nDisallow: /a$\n", "a", "/a$b", true},
		{"P4", "User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "a", "/d/", false},
		{"P5", "User-agent: *\nDisallow: x\n", "a", "/x", true},
		{"P6", "User-agent: *\nDisallow: /a?q=%70\n", "a", "/a?q=p", false},
		{"P6", "User-agent: *\nDisallow: /a?q=p\n", "a", "/a?q=%70", false},
		{"P7", "User-agent: *\nDissallow: /x\n", "a", "/x", true},
		{"P7", "user-agent a\nDisallow: /x\n", "a", "/x", true},
	})
}

// deviationCase is a file and a pair on which a parser's verdict is not
// RFC 9309's, by the deviation id.
type deviationCase struct {
	id          string
	robots      string
	agent, path string
	rfc         bool // RFC 9309's verdict: allowed
}

// checkDeviations runs the parser on each case, one process per file,
// and checks that its verdict is not RFC 9309's and that the deviation
// the case shows reaches it, and no other: the deviations are real, each
// alone changes a verdict, and Reaches sees them.
func (p Parser) checkDeviations(t *testing.T, cases []deviationCase) {
	t.Helper()
	shown := map[string]bool{}
	for _, c := range cases {
		i := slices.IndexFunc(p.Deviations, func(d Deviation) bool { return d.ID == c.id })
		if i < 0 {
			t.Fatalf("%s: no such deviation", c.id)
		}
		shown[c.id] = true
		q := Query{c.agent, c.path}
		if got := p.Verdicts(t, c.robots, []Query{q})[0]; got == c.rfc {
			t.Errorf("%s (%s): %s says %v for %s %s, as RFC 9309 does:\n%s", c.id, p.Deviations[i].Says, p.Name, got, c.agent, c.path, c.robots)
		}
		if got := p.Reaching(Read(c.robots), q); !slices.Equal(got, []string{c.id}) {
			t.Errorf("%s's case, %s %s: the deviations reaching it are %v:\n%s", c.id, c.agent, c.path, got, c.robots)
		}
	}
	for _, d := range p.Deviations {
		if !shown[d.ID] {
			t.Errorf("%s (%s): no case shows it", d.ID, d.Says)
		}
	}
}
