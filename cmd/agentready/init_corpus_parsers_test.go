package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/testing/robotsparsers"
	"github.com/agentready/agentready/internal/testing/testtools"
	"github.com/jimsmart/grobotstxt"
)

// corpusFile is one corpus file as TestInitCorpus read it: the original,
// the robots.txt rendered from init's declaration, the agents and paths
// asked about, and the agents init reported a difference for (lowercased,
// corpusUnnamed for an agent neither file names), with the paths named.
type corpusFile struct {
	orig, gen string
	agents    []string
	paths     []string
	reported  map[string][]claim
}

// queries are the pairs asked about: every agent on every path, and on
// the paths init named for it.
func (c corpusFile) queries() []robotsparsers.Query {
	var qs []robotsparsers.Query
	for _, a := range c.agents {
		ps := slices.Clone(c.paths)
		for _, d := range c.reported[strings.ToLower(a)] {
			ps = append(ps, d.path)
		}
		for _, p := range ps {
			qs = append(qs, robotsparsers.Query{Agent: a, Path: p})
		}
	}
	return qs
}

// corpusReach counts, by deviation id, the pairs a parser's deviations
// reach in the original and in the generated robots.txt, and the pairs it
// reads otherwise in the two for an agent init reported nothing for (by
// the ids reaching the pair, joined with '+').
type corpusReach struct{ orig, gen, differ map[string]int }

func newCorpusReach() corpusReach {
	return corpusReach{map[string]int{}, map[string]int{}, map[string]int{}}
}

func (r corpusReach) add(o corpusReach) {
	for _, m := range [][2]map[string]int{{r.orig, o.orig}, {r.gen, o.gen}, {r.differ, o.differ}} {
		for k, n := range m[1] {
			m[0][k] += n
		}
	}
}

func (r corpusReach) String() string {
	return fmt.Sprintf("reaching the original: %s; reaching the generated file: %s; read otherwise by them: %s",
		deviationCounts(r.orig), deviationCounts(r.gen), deviationCounts(r.differ))
}

// compareCorpusParser reads both files of c with a parser other than
// Google's: it reads the rendered robots.txt as the original on every
// pair, except for an agent init reported a difference for, and except
// where one of the parser's deviations from RFC 9309 reaches the pair in
// either file (Google's parser, which reads by RFC 9309, finds the two
// alike on such a pair: checkAgent). Those pairs are the parser's
// reading of the site's file, not init's doing; they and every pair a
// deviation reaches are counted and logged.
func compareCorpusParser(t *testing.T, p robotsparsers.Parser, c corpusFile) corpusReach {
	qs := c.queries()
	vo, vg := p.Verdicts(t, c.orig, qs), p.Verdicts(t, c.gen, qs)
	fo, fg := robotsparsers.Read(c.orig), robotsparsers.Read(c.gen)
	r := newCorpusReach()
	reportedPairs := 0
	for i, q := range qs {
		ro, rg := p.Reaching(fo, q), p.Reaching(fg, q)
		for _, id := range ro {
			r.orig[id]++
		}
		for _, id := range rg {
			r.gen[id]++
		}
		if vo[i] == vg[i] {
			continue
		}
		if c.reported[strings.ToLower(q.Agent)] != nil {
			reportedPairs++
			continue
		}
		ids := slices.Compact(slices.Sorted(slices.Values(append(ro, rg...))))
		if ids == nil {
			t.Errorf("%s %s: %s reads the original as %s it, the generated robots.txt as %s it; init reported no difference for the agent, and none of the parser's deviations reaches the pair",
				q.Agent, q.Path, p.Name, word(vo[i]), word(vg[i]))
			continue
		}
		r.differ[strings.Join(ids, "+")]++
	}
	t.Logf("%s: %d pairs, %d read otherwise for agents init reported; deviations %s", p.Name, len(qs), reportedPairs, r)
	return r
}

// compareCorpusUrllib reads the rendered robots.txt with Python's
// urllib.robotparser. Its verdicts are not compared with its reading of
// the original: it takes a group's first matching rule in file order
// (robotsparsers.PyGroups, D2), so its reading of a site's file depends
// on the order the site wrote for longest-match parsers, and render
// writes each group's rules longest first. What is compared is what
// holds of init's output: urllib.robotparser's verdicts are PyGroups'
// (its reading stated whole), and PyGroups with RFC 9309's matching in
// place of literal '*' and '$' (D1) gives Google's verdict on every pair,
// so that D1 is the only way it reads the generated file otherwise. It
// returns the pairs D1 changes, and those it reads otherwise in the two
// files, for the record.
func compareCorpusUrllib(t *testing.T, p robotsparsers.Parser, c corpusFile) (d1, otherwise, pairs int) {
	qs := c.queries()
	v, vo := p.Verdicts(t, c.gen, qs), p.Verdicts(t, c.orig, qs)
	groups := robotsparsers.ReadPy(c.gen)
	for i, q := range qs {
		if got := groups.Allowed(q.Agent, q.Path, false); got != v[i] {
			t.Errorf("%s %s: urllib.robotparser %s it, the statement of its reading (PyGroups) %s it", q.Agent, q.Path, word(v[i]), word(got))
		}
		google := grobotstxt.AgentAllowed(c.gen, q.Agent, "https://site.example"+q.Path)
		if rfc := groups.Allowed(q.Agent, q.Path, true); rfc != google {
			t.Errorf("%s %s: urllib.robotparser's reading with RFC 9309 matching %s it, Google's parser %s it: a deviation besides D1 reaches init's output", q.Agent, q.Path, word(rfc), word(google))
		}
		if v[i] != google {
			d1++
		}
		if v[i] != vo[i] {
			otherwise++
		}
	}
	t.Logf("urllib.robotparser: %d pairs of the generated robots.txt, %d read otherwise than Google's parser reads them, by D1 (literal '*' and '$'); %d read otherwise than urllib.robotparser reads the original", len(qs), d1, otherwise)
	return d1, otherwise, len(qs)
}

// corpusParsers runs the three comparisons on every corpus file, each a
// subtest (needing its parser), and logs the totals.
func corpusParsers(t *testing.T, files map[string]corpusFile) {
	for _, mk := range []func() (robotsparsers.Parser, string){robotsparsers.RobotsParser, robotsparsers.Protego} {
		p, missing := mk()
		t.Run(p.Name, func(t *testing.T) {
			testtools.Need(t, missing)
			total := newCorpusReach()
			for _, name := range slices.Sorted(maps.Keys(files)) {
				t.Run(name, func(t *testing.T) { total.add(compareCorpusParser(t, p, files[name])) })
			}
			t.Logf("every corpus file, %s's deviations %s", p.Name, total)
		})
	}
	p, missing := robotsparsers.Urllib()
	t.Run(p.Name, func(t *testing.T) {
		testtools.Need(t, missing)
		d1, otherwise, pairs := 0, 0, 0
		for _, name := range slices.Sorted(maps.Keys(files)) {
			t.Run(name, func(t *testing.T) {
				d, o, n := compareCorpusUrllib(t, p, files[name])
				d1, otherwise, pairs = d1+d, otherwise+o, pairs+n
			})
		}
		t.Logf("every corpus file: %d pairs of the generated robots.txt; %d read otherwise than Google's parser reads them, by D1; %d read otherwise than urllib.robotparser reads the original", pairs, d1, otherwise)
	})
}

// deviationCounts is "N1: 12, P1+P2: 3", by deviation id, or "none".
func deviationCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
