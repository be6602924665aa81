package main

import (
	"bytes"
	"strings"
)

// init reads a robots.txt as RFC 9309 defines it, and knows where
// Google's parser (the RFC's reference implementation, which crawlers and
// the tests use) reads more: robotsParse with lenient set reads what
// Google's parser also accepts, so that init can say which lines a
// crawler may read otherwise than the RFC does.

// maxRobotsBytes bounds what init reads: RFC 9309 2.5 has crawlers read
// at least 500 KiB; a larger file is refused rather than cut, since a
// crawler may read past where init would stop.
const maxRobotsBytes = 500 << 10

// maxRobotsLine is the longest line Google's parser reads (2083 * 8
// bytes, its limit on one line); the rest of a longer line is dropped,
// and init drops it too, and says so.
const maxRobotsLine = 2083*8 - 1

// robotsRule is one Allow or Disallow record.
type robotsRule struct {
	allow   bool
	pattern string // as matched: escaped as robotsEscape does
	raw     string // the value as written
	line    int
	lenient bool // a record only Google's parser reads (robotsKey)
}

// robotsAgent is one user-agent line of a group.
type robotsAgent struct {
	token  string // the product token matched (robotsToken), "*" for the default
	raw    string
	line   int
	global bool
}

// robotsGroup is a group (RFC 9309 2.1): consecutive user-agent lines
// and the rules after them, up to the next user-agent line that follows
// a rule.
type robotsGroup struct {
	agents []robotsAgent
	rules  []robotsRule
}

// robotsRecord is a line that is neither a group's user-agent nor a rule.
type robotsRecord struct {
	key, value string
	line       int
	kind       recordKind
}

type recordKind int

const (
	recordOther     recordKind = iota // another record (2.2.4): Crawl-delay, Host, ...
	recordSitemap                     // Sitemap (2.2.4)
	recordOrphan                      // an Allow or Disallow before any user-agent line (2.1)
	recordNoColon                     // no ':'; Google reads "key value" as "key: value"
	recordGarbage                     // neither a record nor a comment
	recordTruncated                   // a line longer than maxRobotsLine
	recordLenient                     // a key RFC 9309 does not define that Google reads as one it does
)

// robotsFile is a parsed robots.txt.
type robotsFile struct {
	groups  []robotsGroup
	records []robotsRecord
	// named and global index the groups for rulesFor: the groups naming
	// each product token (lower-cased), and those naming "*" and no other
	// token a lookup could ask for, in file order.
	named  map[string][]int
	global []int
}

// parseRobots parses b as RFC 9309 2.1 and 2.2 say, or (lenient) as
// Google's parser does: field names are case-insensitive; a group is one
// or more user-agent lines and the rules that follow, ended by a
// user-agent line after a rule (lines of other records and empty lines
// end nothing); rules before the first user-agent line belong to no
// group; '#' starts a comment; a UTF-8 byte order mark is skipped.
func parseRobots(b []byte, lenient bool) *robotsFile {
	f := &robotsFile{}
	b = skipBOM(b)
	var cur *robotsGroup
	sawRule := false
	for n, line := range robotsLines(b) {
		num := n + 1
		if len(line) > maxRobotsLine {
			f.records = append(f.records, robotsRecord{line: num, kind: recordTruncated})
			line = line[:maxRobotsLine]
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, colon := strings.Cut(line, ":")
		if !colon {
			// Google's parser reads "Disallow /x" (two words) as
			// "Disallow: /x"; RFC 9309 2.2 requires the colon.
			i := strings.IndexAny(line, " \t")
			if i < 0 || strings.ContainsAny(strings.TrimSpace(line[i:]), " \t") {
				f.records = append(f.records, robotsRecord{value: line, line: num, kind: recordGarbage})
				continue
			}
			key, value = line[:i], strings.TrimSpace(line[i:])
			if k, _ := robotsKey(key); k == "" {
				f.records = append(f.records, robotsRecord{value: line, line: num, kind: recordGarbage})
				continue
			}
			if !lenient {
				f.records = append(f.records, robotsRecord{key: key, value: value, line: num, kind: recordNoColon})
				continue
			}
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if key == "" {
			f.records = append(f.records, robotsRecord{value: line, line: num, kind: recordGarbage})
			continue
		}
		kind, exact := robotsKey(key)
		if !colon {
			exact = false
		}
		if kind != "" && !exact && !lenient {
			f.records = append(f.records, robotsRecord{key: key, value: value, line: num, kind: recordLenient})
			continue
		}
		switch kind {
		case "user-agent":
			if cur == nil || sawRule {
				f.groups = append(f.groups, robotsGroup{})
				cur = &f.groups[len(f.groups)-1]
				sawRule = false
			}
			cur.agents = append(cur.agents, robotsAgent{token: robotsToken(value), raw: value, line: num, global: isGlobalAgent(value)})
		case "allow", "disallow":
			if cur == nil {
				f.records = append(f.records, robotsRecord{key: key, value: value, line: num, kind: recordOrphan})
				continue
			}
			sawRule = true
			cur.rules = append(cur.rules, robotsRule{allow: kind == "allow", pattern: robotsEscape(value), raw: value, line: num, lenient: !exact})
		case "sitemap":
			f.records = append(f.records, robotsRecord{key: key, value: value, line: num, kind: recordSitemap})
		default:
			f.records = append(f.records, robotsRecord{key: key, value: value, line: num, kind: recordOther})
		}
	}
	return f
}

// skipBOM drops a UTF-8 byte order mark, or the start of one, as
// Google's parser does.
func skipBOM(b []byte) []byte {
	for _, c := range []byte{0xEF, 0xBB, 0xBF} {
		if len(b) == 0 || b[0] != c {
			break
		}
		b = b[1:]
	}
	return b
}

// robotsLines splits b at LF, CR and CRLF (RFC 9309 2.2: EOL).
func robotsLines(b []byte) []string {
	var lines []string
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			lines = append(lines, string(b))
			break
		}
		lines = append(lines, string(b[:i]))
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i++
		}
		b = b[i+1:]
	}
	return lines
}

// robotsKey names the record key is ("user-agent", "allow", "disallow",
// "sitemap" or ""), case aside (RFC 9309 2.2). exact is false where only
// Google's parser reads it so: a key that starts with the field name
// ("Allowed"), "useragent" and "user agent", and its list of Disallow
// typos.
func robotsKey(key string) (kind string, exact bool) {
	k := strings.ToLower(key)
	for _, f := range []string{"user-agent", "allow", "disallow", "sitemap"} {
		if k == f {
			return f, true
		}
	}
	switch {
	case strings.HasPrefix(k, "user-agent"), strings.HasPrefix(k, "useragent"), strings.HasPrefix(k, "user agent"):
		return "user-agent", false
	case strings.HasPrefix(k, "allow"):
		return "allow", false
	case strings.HasPrefix(k, "disallow"), strings.HasPrefix(k, "dissallow"), strings.HasPrefix(k, "dissalow"),
		strings.HasPrefix(k, "disalow"), strings.HasPrefix(k, "diaslow"), strings.HasPrefix(k, "diasllow"),
		strings.HasPrefix(k, "disallaw"):
		return "disallow", false
	case strings.HasPrefix(k, "sitemap"), strings.HasPrefix(k, "site-map"):
		return "sitemap", false
	}
	return "", false
}

// isGlobalAgent: "*", alone or before a space, names every crawler
// (RFC 9309 2.2.1; Google's parser reads "* foo" as "*").
func isGlobalAgent(v string) bool {
	return strings.HasPrefix(v, "*") && (len(v) == 1 || v[1] == ' ' || v[1] == '\t')
}

// robotsToken is the product token of a user-agent line's value: its
// longest prefix of HTTP token characters (RFC 9110 5.6.2), as Google's
// parser reads it, so "Googlebot/2.1" names Googlebot. RFC 9309 2.2.1
// writes the token as letters, '-' and '_'; names such as "360Spider"
// are in use, and crawlers match them.
func robotsToken(v string) string {
	if isGlobalAgent(v) {
		return "*"
	}
	i := 0
	for i < len(v) && isTokenChar(v[i]) {
		i++
	}
	return v[:i]
}

func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("~#$%'*+-.^_`|", c) >= 0
}

// robotsEscape writes a pattern as crawlers compare it (RFC 9309 2.2.2):
// octets outside US-ASCII percent-encoded, and the hex digits of an
// escape upper-cased, as Google's parser does.
func robotsEscape(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%' && i+2 < len(p) && isHexDigit(p[i+1]) && isHexDigit(p[i+2]):
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(p[i+1 : i+3]))
			i += 2
		case c >= 0x80:
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// rulesFor are the rules that apply to the crawler whose product token
// is agent ("" for one the file does not name): those of every group
// naming it, combined (RFC 9309 2.2.1), else of every "*" group. named
// says whether a group names it.
func (f *robotsFile) rulesFor(agent string) (rules []robotsRule, named bool) {
	if f.named == nil {
		f.index()
	}
	groups, named := f.named[strings.ToLower(agent)]
	if agent == "" || !named {
		groups, named = f.global, false
	}
	for _, i := range groups {
		rules = append(rules, f.groups[i].rules...)
	}
	return rules, named
}

// index fills f.named and f.global. A group naming "*" and a token
// counts for "*" too: its rules apply to every crawler no other group
// names.
func (f *robotsFile) index() {
	f.named = map[string][]int{}
	for i, g := range f.groups {
		star := false
		seen := map[string]bool{}
		for _, a := range g.agents {
			k := strings.ToLower(a.token)
			switch {
			case a.global:
				star = true
			case k != "" && !seen[k]:
				seen[k] = true
				f.named[k] = append(f.named[k], i)
			}
		}
		if star {
			f.global = append(f.global, i)
		}
	}
}

// robotsMatch is the rule that decides path, nil for none (the path is
// allowed): the longest matching pattern, Allow on a tie (RFC 9309
// 2.2.2). An empty pattern matches nothing. As Google's parser does, an
// Allow of ".../index.htm(l)" also allows ".../" exactly.
func robotsMatch(rules []robotsRule, path string) *robotsRule {
	var best *robotsRule
	bestLen := 0
	for i := range rules {
		r := &rules[i]
		n := len(r.pattern)
		ok := patternMatches(r.pattern, path)
		if !ok && r.allow {
			if j := strings.LastIndexByte(r.pattern, '/'); j >= 0 && strings.HasPrefix(r.pattern[j:], "/index.htm") {
				p := r.pattern[:j+1] + "$"
				ok, n = patternMatches(p, path), len(p)
			}
		}
		if !ok || n == 0 {
			continue
		}
		if n > bestLen || n == bestLen && r.allow && !best.allow {
			best, bestLen = r, n
		}
	}
	return best
}

// robotsAllowed is robotsMatch's verdict.
func robotsAllowed(rules []robotsRule, path string) bool {
	r := robotsMatch(rules, path)
	return r == nil || r.allow
}

// patternMatches reports whether pattern matches a prefix of path: '*'
// any run of octets, '$' at the end the end of the path (RFC 9309 2.2.3).
// The set of path positions the pattern can reach is kept, so the cost
// is O(len(pattern) * len(path)) whatever the pattern.
func patternMatches(pattern, path string) bool {
	pos := []int{0}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '$' && i == len(pattern)-1:
			return pos[len(pos)-1] == len(path)
		case c == '*':
			from := pos[0]
			pos = pos[:0]
			for j := from; j <= len(path); j++ {
				pos = append(pos, j)
			}
		default:
			next := pos[:0]
			for _, p := range pos {
				if p < len(path) && path[p] == c {
					next = append(next, p+1)
				}
			}
			pos = next
			if len(pos) == 0 {
				return false
			}
		}
	}
	return true
}
