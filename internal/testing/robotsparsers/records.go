package robotsparsers

import (
	"slices"
	"strings"
)

// record is a line of a robots.txt, its comment cut off (RFC 9309
// 2.2: '#' starts a comment): a key, lowercased, and a value, trimmed;
// colon says the line has a ':'.
type record struct {
	key, value string
	colon      bool
}

// File is a robots.txt's lines that hold something, and its
// User-agent values as RFC 9309 2.1 groups them: a User-agent line after
// a rule starts a group.
type File struct {
	recs []record
	// groups maps a User-agent value, lowercased, to the groups (their
	// index in the file) that name it; order has the values as read.
	groups map[string][]int
	order  []string
}

// Read reads body's lines.
func Read(body string) File {
	f := File{groups: map[string][]int{}}
	for _, line := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		key, value, colon := strings.Cut(line, ":")
		f.recs = append(f.recs, record{strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value), colon})
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
func (f *File) name(v string, g int) {
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
func (r record) isRule() bool { return r.colon && (r.key == "allow" || r.key == "disallow") }

// isAgent says the record is a User-agent line.
func (r record) isAgent() bool { return r.colon && r.key == "user-agent" }

// otherRecordAmongAgents says whether a line other than a User-agent,
// Allow or Disallow record (Crawl-delay, Sitemap, Content-Usage, any
// unknown record) stands between two User-agent lines with no rule
// between them: RFC 9309 2.2.4 says other records "MUST NOT interfere
// with the parsing of explicitly defined records", so the two agents are
// of one group (2.1), as Google's parser reads them; robots-parser and
// Protego start a new group at the second. A line without ':' counts too
// (Protego reads some as records), erring towards true.
func otherRecordAmongAgents(f File) bool {
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
func ruleValues(f File, allowOnly bool) []string {
	var vs []string
	for _, r := range f.recs {
		if r.isRule() && (!allowOnly || r.key == "allow") {
			vs = append(vs, r.value)
		}
	}
	return vs
}
