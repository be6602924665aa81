package policy_test

// A differential test of agentready's path rules against
// github.com/jimsmart/grobotstxt, a Go port of Google's reference robots.txt
// parser and matcher (github.com/google/robotstxt).
//
// Each case is a rule set and a request target. agentready decides with
// rules.Match(policy.Canonical(nil, r.URL.EscapedPath(), r.URL.RawQuery)),
// no match meaning allowed; grobotstxt decides on the robots.txt body
// "User-agent: *\nAllow: ...\nDisallow: ...\n".
//
// Where the two disagree, the disagreement must be explained by one or
// more of the intended differences below (oracleDiffs). Each intended
// difference is encoded as a transformation of what grobotstxt is given
// (its patterns, its URL, or its matching strategy) that removes exactly
// that difference, and is otherwise Google's behaviour: a disagreement is
// explained when grobotstxt, given the transformed input, agrees with
// agentready. The transformations are written from the RFCs, not from
// agentready's code, and grobotstxt still does the matching and the
// longest-match precedence, so a bug in agentready's matcher or in its
// canonicalisation beyond the listed differences still shows up. A
// disagreement no combination of intended differences explains fails the
// test.
//
// The oracle found one agentready bug when it was written: a pattern with
// an empty query part ("/search?") lost its '?', and so matched "/searchx".
// Its cases are pinned below as agreements.

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"

	"github.com/agentready/agentready/internal/format/pathpattern"
	"github.com/agentready/agentready/internal/policy"
)

// oracleFlags is a set of differences between agentready and Google's
// matcher; each bit names a transformation of grobotstxt's input.
type oracleFlags uint16

const (
	// RFC 9309 2.2.2 (and RFC 3986 6.2.2.2): percent-escapes of unreserved
	// characters (ALPHA DIGIT - . _ ~) are decoded in patterns and in the
	// request, so "/%61dmin" and "/admin" are the same path, and a
	// pattern's precedence is the length of its decoded form. Google
	// compares escapes byte for byte.
	diffUnreserved oracleFlags = 1 << iota
	// RFC 3986 6.2.2.1: hex digits of escapes are compared without regard
	// to case, in the request as in patterns ("/%c3%a9" is "/%C3%A9").
	// Google upper-cases the escapes of patterns but not those of the URL.
	diffHexCase
	// RFC 9309 2.2.2: octets that may not appear raw in a URI (outside
	// ASCII, or not allowed raw by RFC 3986 3.3 and 3.4, such as '"', '<',
	// '[', '^', '{', '|', or a '%' that starts no escape) are
	// percent-encoded in the request and in patterns before comparing.
	// Google encodes only non-ASCII octets, only in patterns, and expects
	// the URL already encoded.
	diffUnsafe
	// RFC 9309 2.2.3: a literal '*' or '$' in the request is the same as
	// %2A or %24 ("/path/foo-%24" matches "/path/foo-$"), so rules match
	// them by their escape. Google matches a raw '*' or '$' in the URL only
	// by a pattern wildcard, never by %2A or %24.
	diffOperators
	// An empty query ("/a?") is the same as no query ("/a"): Go's net/http
	// gives both as RawQuery == "", and Canonical appends a query only when
	// it is non-empty. Google sees the '?' (so "/a$" does not match "/a?"
	// there).
	diffEmptyQuery
	// Google's special case (robots.cc HandleAllow) that an Allow for
	// ".../index.htm" or ".../index.html" also allows ".../" (the directory
	// itself, anchored) is not applied: a rule means what it says. Google
	// documents it only in its parser; RFC 9309 has no such rule.
	diffIndexHTML

	oracleIntended = diffUnreserved | diffHexCase | diffUnsafe | diffOperators | diffEmptyQuery | diffIndexHTML
)

// oracleDiff documents one flag. Doc is the sentence for docs/enforcement.md.
type oracleDiff struct {
	flag oracleFlags
	name string
	doc  string
}

var oracleDiffs = []oracleDiff{
	{diffUnreserved, "unreserved-escapes",
		`Percent-escapes of unreserved characters (letters, digits, "-", ".", "_", "~") are decoded in both rules and requests before matching, so "/%61dmin" and "/admin" are the same path and a rule's precedence is the length of its decoded form (RFC 9309 2.2.2, RFC 3986 6.2.2.2); Google's matcher compares escapes byte for byte.`},
	{diffHexCase, "escape-case",
		`Percent-escapes are compared case-insensitively in requests as in rules, so a request for "/caf%c3%a9" matches a rule for "/caf%C3%A9" (RFC 3986 6.2.2.1); Google upper-cases the escapes of rules but not those of the request.`},
	{diffUnsafe, "unsafe-octets",
		`Octets that may not appear raw in a URI (non-ASCII, or characters such as '"', "<", "[", "^", "{", "|", or a "%" that starts no escape) are percent-encoded in requests and rules before matching (RFC 9309 2.2.2, RFC 3986 2.1); Google encodes only non-ASCII octets, only in rules.`},
	{diffOperators, "literal-operators",
		`A literal "*" or "$" in a request is matched by a rule that spells it %2A or %24, as RFC 9309 2.2.3 specifies ("/path/foo-%24" matches "/path/foo-$"); Google's matcher never matches %2A or %24 to a literal "*" or "$" in the URL.`},
	{diffEmptyQuery, "empty-query",
		`A request with an empty query ("/a?") is matched as the same path without a query ("/a"), since Go's net/http does not tell them apart (RawQuery is empty for both); Google sees the "?", so "Disallow: /a$" blocks "/a?" in agentready but not in Google.`},
	{diffIndexHTML, "index-html",
		`Google's special case that "Allow: /dir/index.html" (or index.htm) also allows "/dir/" is not applied; RFC 9309 has no such rule, and a rule allows only what it matches.`},
}

func (f oracleFlags) String() string {
	var names []string
	for _, d := range oracleDiffs {
		if f&d.flag != 0 {
			names = append(names, d.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// oracleCase is one rule set and request target (escaped path and
// optional "?query", as sent on the request line).
type oracleCase struct {
	allow, disallow []string
	target          string
}

func (c oracleCase) String() string {
	return fmt.Sprintf("allow %q disallow %q target %q", c.allow, c.disallow, c.target)
}

// oracleVerdict is the outcome of comparing one case.
type oracleVerdict struct {
	skip       string      // why the case is not compared ("" when compared)
	agree      bool        // agentready and Google agree as they are
	explained  oracleFlags // the differences that explain a disagreement
	unexplain  bool        // no combination explains it
	agentready bool        // agentready's verdict (allowed)
	google     bool        // Google's verdict (allowed)
	detail     string
}

// oracleRequest parses target the way net/http does for a request line
// and returns what agentready's middleware reads (r.URL.EscapedPath(),
// r.URL.RawQuery) and the target Google's matcher is given (the same
// escaped path, and the query when one was sent, even empty).
func oracleRequest(target string) (rawPath, rawQuery, googleTarget string, err error) {
	for i := 0; i < len(target); i++ {
		// A request line holds no whitespace or controls, and a fragment
		// is never sent.
		if c := target[i]; c <= ' ' || c == 0x7f || c == '#' {
			return "", "", "", fmt.Errorf("byte %q cannot be sent in a request target", c)
		}
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return "", "", "", err
	}
	if u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return "", "", "", fmt.Errorf("not origin-form")
	}
	rawPath, rawQuery = u.EscapedPath(), u.RawQuery
	googleTarget = rawPath
	if u.ForceQuery || rawQuery != "" {
		googleTarget += "?" + rawQuery
	}
	return rawPath, rawQuery, googleTarget, nil
}

// oracleCompare decides c with agentready and with grobotstxt and
// classifies any disagreement.
func oracleCompare(c oracleCase) (v oracleVerdict, err error) {
	for _, p := range append(append([]string(nil), c.allow...), c.disallow...) {
		if pathpattern.Check(p) != nil {
			// CompileRules refuses the rule set: nothing to compare.
			return oracleVerdict{skip: "invalid pattern"}, nil
		}
	}
	rawPath, rawQuery, gTarget, err := oracleRequest(c.target)
	if err != nil {
		return oracleVerdict{skip: "not a request target"}, nil
	}
	// agentready answers 400 to the targets NormalPath refuses (encoded
	// '/', backslash, controls, dot and empty segments, malformed escapes,
	// bytes that are not UTF-8) before consulting any rule, so there is no
	// rule decision to compare.
	if _, err := policy.NormalPath(rawPath); err != nil {
		return oracleVerdict{skip: "refused by NormalPath"}, nil
	}
	rules, err := policy.CompileRules(c.allow, c.disallow)
	if err != nil {
		return v, fmt.Errorf("CompileRules refused valid patterns: %v", err)
	}
	canon := string(policy.Canonical(nil, rawPath, rawQuery))
	rule, ok := rules.Match(canon)
	v.agentready = !ok || rule.Allow

	v.google, err = oracleGoogle(c, gTarget, 0)
	if err != nil {
		return v, err
	}
	if v.agentready == v.google {
		v.agree = true
		return v, nil
	}
	matched := "no rule"
	if ok {
		matched = fmt.Sprintf("%+v", *rule)
	}
	v.detail = fmt.Sprintf("%v: agentready allowed=%v (canonical %q, %s), Google allowed=%v (URL path %q)",
		c, v.agentready, canon, matched, v.google, gTarget)

	// Find the smallest set of intended differences that explains the
	// disagreement: single differences first, then pairs, then all of them.
	agrees := func(f oracleFlags) (bool, error) {
		g, err := oracleGoogle(c, gTarget, f)
		return g == v.agentready, err
	}
	var singles []oracleFlags
	for _, d := range oracleDiffs {
		if d.flag&oracleIntended != 0 {
			singles = append(singles, d.flag)
		}
	}
	try := func(f oracleFlags) (bool, error) {
		ok, err := agrees(f)
		if ok {
			v.explained = f
		}
		return ok, err
	}
	for _, f := range singles {
		if ok, err := try(f); ok || err != nil {
			return v, err
		}
	}
	for i := range singles {
		for j := i + 1; j < len(singles); j++ {
			if ok, err := try(singles[i] | singles[j]); ok || err != nil {
				return v, err
			}
		}
	}
	if ok, err := try(oracleIntended); ok || err != nil {
		return v, err
	}
	v.unexplain = true
	return v, nil
}

// oracleGoogle returns grobotstxt's verdict on c, its inputs transformed
// to remove the differences in f.
func oracleGoogle(c oracleCase, target string, f oracleFlags) (bool, error) {
	var body strings.Builder
	body.WriteString("User-agent: *\n")
	for _, p := range c.allow {
		body.WriteString("Allow: " + oracleGooglePattern(p, f) + "\n")
	}
	for _, p := range c.disallow {
		body.WriteString("Disallow: " + oracleGooglePattern(p, f) + "\n")
	}
	uri := "http://example.com" + oracleNormalise(target, false, f)
	// grobotstxt (unlike Google's C++) runs the URL through url.Parse and
	// String before matching; the targets built here must survive that
	// unchanged, or the oracle would not be comparing the same request.
	u, err := url.Parse(uri)
	if err != nil || u.String() != uri {
		return false, fmt.Errorf("oracle harness: grobotstxt would rewrite %q (%v)", uri, err)
	}
	m := grobotstxt.NewRobotsMatcher()
	if f&diffIndexHTML != 0 {
		m.MatchStrategy = &oracleNoIndexHTML{}
	}
	return m.AgentAllowed(body.String(), "FooBot", uri), nil
}

// oracleGooglePattern is the pattern written into the robots.txt body.
// Whatever f says, its escapes are upper-cased here: that is what Google's
// parser does (robots.cc EscapePattern), but grobotstxt v1.0.3 upper-cases
// with c&^0x20, which also turns the digit '3' of "%c3" into 0x13; doing
// it first keeps the port off that path.
func oracleGooglePattern(p string, f oracleFlags) string {
	return oracleNormalise(p, true, f|diffHexCase)
}

// oracleNormalise applies the transformations of f to a pattern or a
// request target (path and optional "?query"), written from RFC 3986 and
// RFC 9309 rather than from agentready's code.
func oracleNormalise(s string, pattern bool, f oracleFlags) string {
	anchored := pattern && strings.HasSuffix(s, "$")
	if anchored {
		s = s[:len(s)-1]
	}
	if q := strings.IndexByte(s, '?'); q >= 0 && q == len(s)-1 {
		if !pattern && f&diffEmptyQuery != 0 {
			s = s[:q]
		}
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+8)
	inQuery := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && oracleIsHex(s[i+1]) && oracleIsHex(s[i+2]):
			v := oracleUnhex(s[i+1])<<4 | oracleUnhex(s[i+2])
			switch {
			case f&diffUnreserved != 0 && oracleUnreserved(v):
				b = append(b, v)
			case f&diffHexCase != 0:
				b = append(b, '%', hex[v>>4], hex[v&15])
			default:
				b = append(b, s[i:i+3]...)
			}
			i += 2
		case c == '?' && !inQuery:
			inQuery = true
			b = append(b, c)
		case pattern && c == '*':
			b = append(b, c) // the wildcard
		case !pattern && (c == '*' || c == '$') && f&diffOperators != 0:
			b = append(b, '%', hex[c>>4], hex[c&15])
		case c >= 0x80 && pattern:
			// Google's parser encodes non-ASCII octets of patterns itself.
			b = append(b, '%', hex[c>>4], hex[c&15])
		case f&diffUnsafe != 0 && !oracleRawOK(c, inQuery):
			b = append(b, '%', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	if anchored {
		b = append(b, '$')
	}
	return string(b)
}

// oracleRawOK: RFC 3986 3.3 pchar and '/' (and, in a query, '?', 3.4).
// '*' and '$' are sub-delims: allowed raw in a URI.
func oracleRawOK(c byte, inQuery bool) bool {
	return oracleUnreserved(c) || strings.IndexByte("!$&'()*+,;=:@/", c) >= 0 || inQuery && c == '?'
}

func oracleUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0
}

func oracleIsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func oracleUnhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// oracleNoIndexHTML is Google's longest-match strategy without the
// index.html special case: robots.cc HandleAllow, when an Allow pattern
// whose last segment starts with "index.htm" does not match, retries at
// once with the directory anchored ("/dir/index.html" -> "/dir/$"). That
// retry is the next MatchAllow call, and this strategy refuses it.
type oracleNoIndexHTML struct {
	grobotstxt.LongestMatchStrategy
	skipNext bool
}

func (s *oracleNoIndexHTML) MatchAllow(path, pattern string) int {
	if s.skipNext {
		s.skipNext = false
		return -1
	}
	p := s.LongestMatchStrategy.MatchAllow(path, pattern)
	if p < 0 {
		if i := strings.LastIndexByte(pattern, '/'); i >= 0 && strings.HasPrefix(pattern[i:], "/index.htm") {
			s.skipNext = true
		}
	}
	return p
}

// Generation. Tokens are chosen so that rules and targets overlap often:
// equivalent spellings of the same character (a, %61, %41 is 'A'), escapes
// of operators, sub-delims raw and escaped, non-ASCII, dots.
var (
	oracleSegs = []string{
		"a", "b", "ab", "abc", "A", "x.y", "a-b", "a.b", "a_b", "~u",
		"index.html", "index.htm", ".well-known", "...", ".a",
		"%61", "%62", "%41", "%61b", "%2A", "%2a", "%24", "%3B", "%3b", "%3F", "%25",
		"%C3%A9", "%c3%a9", ";", "=", "a;b=c", "p;q", "%7E", "%7e", "%5F", "%2D", "%2E", "%2ex",
	}
	// Only in patterns: raw non-ASCII, and what CheckTarget refuses in a
	// request (an encoded '/', dot and empty segments), which patterns may
	// still hold.
	oraclePatternSegs = []string{"\u00e9", "caf\u00e9", "%2F", "..", ".", ""}
	// Only in targets: literal operators and raw non-ASCII.
	oracleTargetSegs = []string{"*", "$", "a*b", "a$", "*$", "\u00e9"}
	oracleQueries    = []string{
		"a=1", "%61=1", "a=%2A", "a=*", "x=$", "q=%c3%a9", "q=%C3%A9", "q=\u00e9",
		"a?b", "a/b", ";=", "a=1&b=2", "%7e", "~", "", "index.html",
	}
	// Equivalent (or near-equivalent) spellings, to derive targets that
	// name what a rule names in another way.
	oracleSpellings = [][]string{
		{"a", "%61"}, {"b", "%62"}, {"A", "%41"}, {"~", "%7E", "%7e"}, {"_", "%5F"}, {"-", "%2D"},
		{"%2A", "%2a", "*"}, {"%24", "$"}, {"%3B", "%3b", ";"}, {"%C3%A9", "%c3%a9", "\u00e9"},
		{"index.html", "index.htm", ""}, {"%2E", "%2e", "."}, {"%3F", "?"},
	}
)

func oraclePick(r *rand.Rand, lists ...[]string) string {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	i := r.IntN(n)
	for _, l := range lists {
		if i < len(l) {
			return l[i]
		}
		i -= len(l)
	}
	panic("unreachable")
}

// oraclePatternTokens makes a pattern as tokens ("*", "$", "/", "?", a
// segment or a query).
func oraclePatternTokens(r *rand.Rand) []string {
	var t []string
	if r.IntN(8) == 0 {
		t = append(t, "*")
		if r.IntN(2) == 0 {
			t = append(t, "/")
		}
	} else {
		t = append(t, "/")
	}
	for n := r.IntN(4); n > 0; n-- {
		if len(t) > 0 && t[len(t)-1] != "/" && t[len(t)-1] != "*" {
			t = append(t, "/")
		}
		t = append(t, oraclePick(r, oracleSegs, oraclePatternSegs))
		if r.IntN(5) == 0 {
			t = append(t, "*")
		}
	}
	if r.IntN(6) == 0 {
		t = append(t, "/")
	}
	if r.IntN(5) == 0 {
		t = append(t, "?")
		q := oraclePick(r, oracleQueries)
		if q != "" {
			t = append(t, q)
		}
		if r.IntN(3) == 0 {
			t = append(t, "*")
		}
	}
	if r.IntN(5) == 0 {
		t = append(t, "$")
	}
	return t
}

// oracleTarget makes a request target: either derived from a rule (its
// wildcards filled, its tokens sometimes respelled, something appended)
// or random.
func oracleTarget(r *rand.Rand, pats [][]string) string {
	var b strings.Builder
	if len(pats) > 0 && r.IntN(4) != 0 {
		inQuery := false
		for _, tok := range pats[r.IntN(len(pats))] {
			switch tok {
			case "$":
				continue
			case "*":
				for n := r.IntN(3); n > 0; n-- {
					if r.IntN(2) == 0 {
						b.WriteString("/")
					}
					b.WriteString(oraclePick(r, oracleSegs, oracleTargetSegs))
				}
				continue
			case "?":
				inQuery = true
			}
			if r.IntN(4) == 0 {
				tok = oracleRespell(r, tok)
			}
			b.WriteString(tok)
		}
		if !inQuery && r.IntN(3) == 0 {
			b.WriteString("/" + oraclePick(r, oracleSegs, oracleTargetSegs))
		}
	} else {
		for n := 1 + r.IntN(3); n > 0; n-- {
			b.WriteString("/" + oraclePick(r, oracleSegs, oracleTargetSegs))
		}
	}
	s := b.String()
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	if !strings.Contains(s, "?") && r.IntN(4) == 0 {
		s += "?" + oraclePick(r, oracleQueries)
	}
	return s
}

// oracleRespell replaces one spelling in tok by another of its group.
func oracleRespell(r *rand.Rand, tok string) string {
	g := oracleSpellings[r.IntN(len(oracleSpellings))]
	from, to := g[r.IntN(len(g))], g[r.IntN(len(g))]
	if from == "" {
		return tok
	}
	return strings.Replace(tok, from, to, 1)
}

// oracleCases generates n cases from a fixed seed: rule sets of up to five
// Allow and five Disallow patterns that pathpattern.Check accepts,
// each with several targets.
func oracleCases(seed uint64, n int) []oracleCase {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var cases []oracleCase
	for len(cases) < n {
		var allow, disallow []string
		var toks [][]string
		gen := func(k int) []string {
			var ps []string
			for len(ps) < k {
				t := oraclePatternTokens(r)
				p := strings.Join(t, "")
				if pathpattern.Check(p) != nil {
					continue
				}
				ps = append(ps, p)
				toks = append(toks, t)
			}
			return ps
		}
		allow, disallow = gen(r.IntN(6)), gen(r.IntN(6))
		for k := 0; k < 4; k++ {
			cases = append(cases, oracleCase{allow, disallow, oracleTarget(r, toks)})
		}
	}
	return cases
}

// oracleStats accumulates verdicts.
type oracleStats struct {
	compared, agreed, skipped int
	explained                 map[oracleFlags]int
	example                   map[oracleFlags]string
	unexplained               []string
}

func (s *oracleStats) add(t *testing.T, c oracleCase) {
	t.Helper()
	v, err := oracleCompare(c)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	if v.skip != "" {
		s.skipped++
		return
	}
	s.compared++
	switch {
	case v.agree:
		s.agreed++
	case v.unexplain:
		s.unexplained = append(s.unexplained, v.detail)
	default:
		if s.explained == nil {
			s.explained, s.example = map[oracleFlags]int{}, map[oracleFlags]string{}
		}
		s.explained[v.explained]++
		if _, ok := s.example[v.explained]; !ok {
			s.example[v.explained] = v.detail
		}
	}
}

func (s *oracleStats) report(t *testing.T) {
	t.Helper()
	t.Logf("compared %d cases (%d skipped: invalid pattern or target refused by CheckTarget): %d agree, %d differ as intended, %d unexplained",
		s.compared, s.skipped, s.agreed, s.compared-s.agreed-len(s.unexplained), len(s.unexplained))
	var keys []oracleFlags
	for f := range s.explained {
		keys = append(keys, f)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, f := range keys {
		t.Logf("  %-45s %5d  e.g. %s", f, s.explained[f], s.example[f])
	}
	for i, d := range s.unexplained {
		if i == 20 {
			t.Errorf("... and %d more unexplained disagreements", len(s.unexplained)-i)
			break
		}
		t.Errorf("unexplained disagreement: %s", d)
	}
}

// TestRobotsOracle compares agentready's decisions with Google's on
// generated rule sets and targets (a fixed seed), and on hand-picked cases
// that pin each intended difference.
func TestRobotsOracle(t *testing.T) {
	t.Run("generated", func(t *testing.T) {
		var s oracleStats
		for _, c := range oracleCases(9309, 8000) {
			s.add(t, c)
		}
		s.report(t)
		if s.compared < 5000 {
			t.Errorf("only %d cases compared", s.compared)
		}
		// The generator must keep exercising every intended difference.
		for _, d := range oracleDiffs {
			seen := false
			for f, n := range s.explained {
				seen = seen || f&d.flag != 0 && n > 0
			}
			if d.flag&oracleIntended != 0 && !seen {
				t.Errorf("no generated case shows the difference %s", d.name)
			}
		}
	})
	t.Run("pinned", func(t *testing.T) {
		for _, tt := range oraclePinned {
			v, err := oracleCompare(tt.c)
			if err != nil {
				t.Fatalf("%v: %v", tt.c, err)
			}
			switch {
			case v.skip != "":
				t.Errorf("%v: not compared: %s", tt.c, v.skip)
			case v.unexplain:
				t.Errorf("unexplained disagreement: %s", v.detail)
			case tt.want == 0 && !v.agree:
				t.Errorf("%v: want agreement, got %v: %s", tt.c, v.explained, v.detail)
			case tt.want != 0 && (v.agree || v.explained != tt.want):
				t.Errorf("%v: want a difference explained by %v, got agree=%v explained=%v", tt.c, tt.want, v.agree, v.explained)
			}
		}
	})
}

// oraclePinned pins each difference (want) with a reproducer, and a few
// agreements (want 0) that it would be easy to break.
var oraclePinned = []struct {
	c    oracleCase
	want oracleFlags
}{
	{oracleCase{nil, []string{"/admin"}, "/%61dmin"}, diffUnreserved},
	{oracleCase{nil, []string{"/%61dmin"}, "/admin/x"}, diffUnreserved},
	// Precedence alone: both rules match in both matchers, but "/%61" is
	// "/a", shorter than "/*bc" in agentready and as long in Google.
	{oracleCase{[]string{"/%61"}, []string{"/*bc"}, "/%61bc"}, diffUnreserved},
	{oracleCase{nil, []string{"/caf%C3%A9"}, "/caf%c3%a9"}, diffHexCase},
	{oracleCase{nil, []string{"/a%5B"}, "/a["}, diffUnsafe},
	{oracleCase{nil, []string{"/a?%C3%A9"}, "/a?\u00e9"}, diffUnsafe},
	{oracleCase{nil, []string{"/path/file-with-a-%2A.html"}, "/path/file-with-a-*.html"}, diffOperators},
	{oracleCase{nil, []string{"/path/foo-%24"}, "/path/foo-$"}, diffOperators},
	{oracleCase{nil, []string{"/a$"}, "/a?"}, diffEmptyQuery},
	{oracleCase{[]string{"/dir/index.html"}, []string{"/"}, "/dir/"}, diffIndexHTML},
	// Agreements.
	{oracleCase{nil, []string{"/search?"}, "/searchx"}, 0}, // once broadened to "/search"
	{oracleCase{[]string{"/?"}, []string{"/"}, "/private"}, 0},
	{oracleCase{[]string{"/*?"}, []string{"/"}, "/a"}, 0},
	{oracleCase{nil, []string{"/*.php$"}, "/a.php?x=1"}, 0},
	{oracleCase{[]string{"/a"}, []string{"/a"}, "/a"}, 0},
	{oracleCase{[]string{"/p"}, []string{"/*"}, "/p"}, 0},
	{oracleCase{nil, []string{"/a*b"}, "/a/x*b"}, 0},
	{oracleCase{nil, []string{"/a;b"}, "/a%3Bb"}, 0}, // ';' is reserved: its escape is not the character
	{oracleCase{nil, []string{"*.gif$"}, "/x/y.gif"}, 0},
	{oracleCase{nil, []string{"/caf\u00e9"}, "/caf%C3%A9"}, 0},
	{oracleCase{nil, []string{"/a?b=*"}, "/a?b=*"}, 0},
}

// FuzzRobotsOracle is TestRobotsOracle on fuzzed rule sets (newline-
// separated Allow and Disallow patterns) and targets.
func FuzzRobotsOracle(f *testing.F) {
	for _, tt := range oraclePinned {
		f.Add(strings.Join(tt.c.allow, "\n"), strings.Join(tt.c.disallow, "\n"), tt.c.target)
	}
	for _, c := range oracleCases(2222, 200) {
		f.Add(strings.Join(c.allow, "\n"), strings.Join(c.disallow, "\n"), c.target)
	}
	split := func(s string) []string {
		var ps []string
		for _, p := range strings.Split(s, "\n") {
			if p != "" {
				ps = append(ps, p)
			}
		}
		return ps
	}
	f.Fuzz(func(t *testing.T, allow, disallow, target string) {
		c := oracleCase{split(allow), split(disallow), target}
		if len(c.allow)+len(c.disallow) > 16 || len(allow)+len(disallow) > 1024 || len(target) > 512 {
			t.Skip("too large")
		}
		v, err := oracleCompare(c)
		switch {
		case err != nil:
			t.Fatalf("%v: %v", c, err)
		case v.unexplain:
			t.Fatalf("unexplained disagreement: %s", v.detail)
		}
	})
}
