package e2e_test

import (
	"slices"
	"strings"
	"testing"
)

// robotsDeviation is one way a parser reads a robots.txt otherwise than
// RFC 9309. reaches says whether a pair of a file may be read otherwise
// by it: it errs only towards true, so that false means the pair is read
// as RFC 9309 reads it, as far as this deviation goes.
type robotsDeviation struct {
	id, says string
	reaches  func(f robotsFile, q robotsQuery) bool
}

// robotsDeviationCase is a file and a pair on which a parser's verdict is
// not RFC 9309's, by the deviation id.
type robotsDeviationCase struct {
	id          string
	robots      string
	agent, path string
	rfc         bool // RFC 9309's verdict: allowed
}

// parserVerdictsFunc asks a parser about every pair of one file, in one
// process run.
type parserVerdictsFunc func(t *testing.T, body string, qs []robotsQuery) []bool

// compareParser reads every case's robots.txt with a parser and checks
// that it allows exactly the pairs agentready serves, and that none of
// its deviations reaches a pair: a file that reached one would need the
// deviation stated as a model of the parser's verdict (as
// robots_python_model_test.go does for urllib.robotparser), not an
// excuse. It returns the pairs compared.
func compareParser(t *testing.T, parser string, devs []robotsDeviation, verdicts parserVerdictsFunc) int {
	t.Helper()
	total := 0
	for _, c := range robotsCases(t) {
		t.Run(c.name, func(t *testing.T) {
			rd := readRobots(t, c)
			f := robotsRecords(rd.body)
			v := verdicts(t, rd.body, rd.qs)
			compared := 0
			for i, q := range rd.qs {
				for _, d := range devs {
					if d.reaches(f, q) {
						t.Errorf("%s %s: may be read otherwise by %s's %s (%s)", q.agent, q.path, parser, d.id, d.says)
					}
				}
				if rd.target[i] {
					continue
				}
				compared++
				if v[i] != rd.enforced[i] {
					t.Errorf("%s %s: %s says %v, agentready enforces %v (%s)", q.agent, q.path, parser, v[i], rd.enforced[i], rd.rule[i])
				}
			}
			if compared < 2000 {
				t.Errorf("only %d pairs compared", compared)
			}
			total += compared
			t.Logf("%d agent/path pairs compared, each read by %s as agentready enforces it", compared, parser)
		})
	}
	return total
}

// checkDeviations runs a parser on each case, one process per file, and
// checks that its verdict is not RFC 9309's and that the deviation the
// case shows reaches it, and no other: the deviations are real, each
// alone changes a verdict, and reaches sees them.
func checkDeviations(t *testing.T, parser string, devs []robotsDeviation, cases []robotsDeviationCase, verdicts parserVerdictsFunc) {
	t.Helper()
	shown := map[string]bool{}
	for _, c := range cases {
		var dev *robotsDeviation
		for i := range devs {
			if devs[i].id == c.id {
				dev = &devs[i]
			}
		}
		if dev == nil {
			t.Fatalf("%s: no such deviation", c.id)
		}
		shown[c.id] = true
		q := robotsQuery{agent: c.agent, ua: c.agent + "/1.0", path: c.path}
		if got := verdicts(t, c.robots, []robotsQuery{q})[0]; got == c.rfc {
			t.Errorf("%s (%s): %s says %v for %s %s, as RFC 9309 does:\n%s", c.id, dev.says, parser, got, c.agent, c.path, c.robots)
		}
		for _, d := range devs {
			if reached := d.reaches(robotsRecords(c.robots), q); reached != (d.id == c.id) {
				t.Errorf("%s's case, %s %s: %s's reaches says %v:\n%s", c.id, c.agent, c.path, d.id, reached, c.robots)
			}
		}
	}
	for _, d := range devs {
		if !shown[d.id] {
			t.Errorf("%s (%s): no case shows it", d.id, d.says)
		}
	}
}

// robotsRecord is a line of a robots.txt, its comment cut off (RFC 9309
// 2.2: '#' starts a comment): a key, lowercased, and a value, trimmed;
// colon says the line has a ':'.
type robotsRecord struct {
	key, value string
	colon      bool
}

// robotsFile is a robots.txt's lines that hold something, and its
// User-agent values as RFC 9309 2.1 groups them: a User-agent line after
// a rule starts a group.
type robotsFile struct {
	recs []robotsRecord
	// groups maps a User-agent value, lowercased, to the groups (their
	// index in the file) that name it; order has the values as read.
	groups map[string][]int
	order  []string
}

// robotsRecords reads body's lines.
func robotsRecords(body string) robotsFile {
	f := robotsFile{groups: map[string][]int{}}
	for _, line := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		key, value, colon := strings.Cut(line, ":")
		f.recs = append(f.recs, robotsRecord{strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value), colon})
	}
	g, agents := -1, false
	for _, r := range f.recs {
		switch {
		case r.isAgent():
			if !agents {
				g, agents = g+1, true
			}
			f.name(strings.ToLower(r.value), g)
		case r.isRule():
			agents = false
		}
	}
	return f
}

// name records that group g names the User-agent value v.
func (f *robotsFile) name(v string, g int) {
	if v == "" {
		return
	}
	if f.groups[v] == nil {
		f.order = append(f.order, v)
	}
	if !slices.Contains(f.groups[v], g) {
		f.groups[v] = append(f.groups[v], g)
	}
}

// isRule says the record is an Allow or Disallow line.
func (r robotsRecord) isRule() bool { return r.colon && (r.key == "allow" || r.key == "disallow") }

// isAgent says the record is a User-agent line.
func (r robotsRecord) isAgent() bool { return r.colon && r.key == "user-agent" }

// otherRecordAmongAgents says whether a line other than a User-agent,
// Allow or Disallow record (Crawl-delay, Sitemap, Content-Usage, any
// unknown record) stands between two User-agent lines with no rule
// between them: RFC 9309 2.2.4 says other records "MUST NOT interfere
// with the parsing of explicitly defined records", so the two agents are
// of one group (2.1), as Google's parser reads them; robots-parser and
// Protego start a new group at the second. A line without ':' counts too
// (Protego reads some as records), erring towards true.
func otherRecordAmongAgents(f robotsFile) bool {
	agents, other := false, false
	for _, r := range f.recs {
		switch {
		case r.isAgent():
			if agents && other {
				return true
			}
			agents, other = true, false
		case r.isRule():
			agents, other = false, false
		case agents:
			other = true
		}
	}
	return false
}

// escapesUnreserved says whether s holds the percent-encoding of an
// unreserved character (RFC 3986 2.3: ALPHA, DIGIT, '-', '.', '_', '~'),
// which RFC 9309 2.2.2 has decoded before paths are compared.
func escapesUnreserved(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		hi, lo := unhex(s[i+1]), unhex(s[i+2])
		if hi < 0 || lo < 0 {
			continue
		}
		c := byte(hi<<4 | lo)
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			return true
		}
	}
	return false
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// ruleValues are the patterns of f's Allow and Disallow lines (allow
// ones only, when allowOnly).
func ruleValues(f robotsFile, allowOnly bool) []string {
	var vs []string
	for _, r := range f.recs {
		if r.isRule() && (!allowOnly || r.key == "allow") {
			vs = append(vs, r.value)
		}
	}
	return vs
}
