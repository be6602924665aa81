package trail

import (
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/auditparams"
	"github.com/agentready/agentready/internal/policy"
)

// A path param is recorded (auditparams.Target.PathParams) by the segment of the
// path as sent that holds it, so that the store's Redactor can hide that
// segment. Which segment holds it is a matter of reading: the enforcer
// routes a path as sent, without a trailing slash or a format extension,
// in lower case, and each segment without its ";…" part (servlet
// containers strip it), so a segment holds a param whenever one of those
// readings puts it at the param's place in the endpoint template, or the
// card number in /api/cards;x/4111… would be recorded as sent. A refused
// target is recorded too, and the routers that would have read it resolve
// dot segments and collapse empty ones. So the tags err on the side of
// redacting: a literal segment of the template matches a segment under
// any combination of those readings and percent-decoding; the path is
// read as sent (empty segments collapsed), with its dot segments
// resolved, and with them dropped, and the template may match any run of
// its segments, at every step of the resolution (/api/cards/4111/.. holds
// a card number that the resolved path no longer has,
// /static/../api/cards/4111 one after a prefix).

// segments is an escaped path read for paramTags: each segment's readings
// are worked out once, for every template to be matched against.
type segments struct {
	parts []string // the path split at '/': parts[0] precedes the first '/'
	dots  []uint8  // each part's dots (segmentDots)
	// cands holds each part's readings in lower case, deduplicated
	// (appendReadings): part i's are cands[at[i]:at[i+1]].
	cands []string
	at    []int32
	// dotted: a non-empty segment is a dot segment on some reading, so
	// the three readings of paramTags differ; without one they are one.
	dotted bool
	// seen are the tags paramTags gave, so that a tag is added once (a
	// path may repeat a template thousands of times).
	seen map[auditparams.PathParam]bool
	run  []int // paramTags' buffer, kept for the next template
}

func readSegments(path string) *segments {
	s := &segments{parts: strings.Split(path, "/")}
	s.dots = make([]uint8, len(s.parts))
	s.at = make([]int32, 0, len(s.parts)+1)
	s.cands = make([]string, 0, len(s.parts)+len(s.parts)/2)
	for i, p := range s.parts {
		if plain(p) {
			// Every reading is p: one candidate, no dot segment.
			s.at = append(s.at, int32(len(s.cands)))
			s.cands = append(s.cands, p)
			continue
		}
		reads := segmentReadings(p)
		s.dots[i] = segmentDots(reads)
		s.dotted = s.dotted || (i > 0 && p != "" && s.dots[i] > 0)
		s.at = append(s.at, int32(len(s.cands)))
		s.cands = appendReadings(s.cands, reads)
	}
	s.at = append(s.at, int32(len(s.cands)))
	return s
}

// paramTags returns the declared in:path params of the capability c that
// segments of the path hold on some reading, each by its segment of the
// path (auditparams.PathParam), appended to tags unless already there. Its cost
// is linear in the path: each segment is compared with the template's
// literals by length first (==), its readings computed once.
func (s *segments) paramTags(tags []auditparams.PathParam, c *policy.Capability) []auditparams.PathParam {
	ts := templateSegments(c)
	if ts == nil || len(ts) >= len(s.parts) {
		return tags
	}
	lits := make([][]string, len(ts))
	for j, t := range ts {
		if !isParam(t) {
			// As written and unescaped, in lower case: a segment's
			// readings are compared with these.
			lits[j] = []string{strings.ToLower(t)}
			if u := strings.ToLower(unescape(t)); u != lits[j][0] {
				lits[j] = append(lits[j], u)
			}
		}
	}
	m := len(ts)
	if s.run == nil {
		s.run = make([]int, 0, len(s.parts))
	}
	run := s.run[:0]
	// As sent, empty segments collapsed: a dot segment is a name (chi
	// routes /api/cards/.;4111 to {card_number}). The template may match
	// any run of the segments.
	for i := 1; i < len(s.parts); i++ {
		if s.parts[i] == "" {
			continue
		}
		if run = append(run, i); len(run) >= m {
			tags = s.match(tags, c, ts, lits, run[len(run)-m:])
		}
	}
	if !s.dotted {
		return tags // the readings below are this one
	}
	// Resolved: dot segments resolved, empty ones collapsed, the template
	// matched against the last segments at every step.
	run = run[:0]
	for i := 1; i < len(s.parts); i++ {
		switch s.dots[i] {
		case 1:
			continue
		case 2:
			if len(run) > 0 {
				run = run[:len(run)-1]
			}
			continue
		}
		if run = append(run, i); len(run) >= m {
			tags = s.match(tags, c, ts, lits, run[len(run)-m:])
		}
	}
	// With dot segments dropped, neither names nor resolved: the card
	// number of /api/cards/%2e%2e/4111 is in no router's param, but in
	// the path.
	run = run[:0]
	for i := 1; i < len(s.parts); i++ {
		if s.parts[i] == "" || s.dots[i] > 0 {
			continue
		}
		if run = append(run, i); len(run) >= m {
			tags = s.match(tags, c, ts, lits, run[len(run)-m:])
		}
	}
	return tags
}

// match tags c's params when the segments at idx (indices into s.parts,
// one per template segment) have the template ts: each "{param}" a
// non-empty segment, each literal (lits: as written and unescaped, in
// lower case) equal to the segment on some reading of it.
func (s *segments) match(tags []auditparams.PathParam, c *policy.Capability, ts []string, lits [][]string, idx []int) []auditparams.PathParam {
	for j, t := range ts {
		if isParam(t) {
			if s.parts[idx[j]] == "" {
				return tags
			}
		} else if !s.literalMatches(lits[j], idx[j]) {
			return tags
		}
	}
	for j, t := range ts {
		if !isParam(t) {
			continue
		}
		if name := t[1 : len(t)-1]; declaredInPath(c.Decl, name) {
			tags = s.addTag(tags, auditparams.PathParam{Name: name, Segment: idx[j]})
		}
	}
	return tags
}

// literalMatches reports whether part i reads as the template literal
// whose readings are lit: ignoring case, percent-decoded or not, without
// its ";…" part or not, with a format extension or without.
func (s *segments) literalMatches(lit []string, i int) bool {
	for _, c := range s.cands[s.at[i]:s.at[i+1]] {
		for _, l := range lit {
			if c == l {
				return true
			}
		}
	}
	return false
}

// templateSegments returns the segments of c's endpoint path after the
// first '/', trailing empty ones dropped; nil when it has no param.
func templateSegments(c *policy.Capability) []string {
	if !strings.Contains(c.Path, "{") {
		return nil
	}
	ts := strings.Split(c.Path, "/")
	if len(ts) > 0 && ts[0] == "" {
		ts = ts[1:]
	}
	for len(ts) > 0 && ts[len(ts)-1] == "" {
		ts = ts[:len(ts)-1]
	}
	for _, s := range ts {
		if isParam(s) {
			return ts
		}
	}
	return nil
}

func isParam(seg string) bool { return len(seg) >= 2 && seg[0] == '{' && seg[len(seg)-1] == '}' }

func declaredInPath(c *config.Capability, name string) bool {
	for i := range c.Params {
		if p := &c.Params[i]; p.In == config.InPath && p.Name == name {
			return true
		}
	}
	return false
}

// addTag appends t to tags unless paramTags gave it before.
func (s *segments) addTag(tags []auditparams.PathParam, t auditparams.PathParam) []auditparams.PathParam {
	if s.seen == nil {
		s.seen = map[auditparams.PathParam]bool{}
		for _, have := range tags {
			s.seen[have] = true
		}
	}
	if s.seen[t] {
		return tags
	}
	s.seen[t] = true
	return append(tags, t)
}

// plain reports whether every reading of seg is seg itself: it is not
// empty and holds no '%', ';', '.', upper-case or non-ASCII byte.
func plain(seg string) bool {
	if seg == "" {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; c == '%' || c == ';' || c == '.' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			return false
		}
	}
	return true
}

// segmentDots returns 1 for an empty segment or "." and 2 for "..", on
// any of its readings (without its ";…" part, decoded, or both), else 0.
func segmentDots(reads [4]string) uint8 {
	n := uint8(0)
	for _, r := range reads {
		switch r {
		case "", ".":
			n = max(n, 1)
		case "..":
			return 2
		}
	}
	return n
}

// appendReadings appends to dst the readings a literal is compared with:
// each of reads, with its format extension and without, in lower case
// (strings.ToLower: no allocation for lower-case ASCII), each once.
func appendReadings(dst []string, reads [4]string) []string {
	start := len(dst)
	for _, r := range reads {
		for _, c := range [2]string{r, withoutExtension(r)} {
			c = strings.ToLower(c)
			if !slices.Contains(dst[start:], c) {
				dst = append(dst, c)
			}
		}
	}
	return dst
}

// segmentReadings returns seg as sent, without its ";…" part, decoded,
// and decoded without its ";…" part (a decoded "%3B" cuts too).
func segmentReadings(seg string) [4]string {
	u := unescape(seg)
	return [4]string{seg, cutParams(seg), u, cutParams(u)}
}

func cutParams(seg string) string {
	s, _, _ := strings.Cut(seg, ";")
	return s
}

// withoutExtension returns seg up to its last '.', or seg without one
// (chi's URLFormat).
func withoutExtension(seg string) string {
	if i := strings.LastIndexByte(seg, '.'); i >= 0 {
		return seg[:i]
	}
	return seg
}

// unescape percent-decodes s, or returns it as is when an escape is
// malformed.
func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// pathLabel is the path the audit event of a request of no capability
// names (audit.Event.Capability), which no Redactor reads: path (escaped)
// unescaped segment by segment, each without its ";…" part (a servlet
// session id travels there, and the container routes without it), and
// each segment a tag holds written "{name}", so that a value the Redactor
// hides in the target does not reach the event's capability either.
func pathLabel(path string, tags []auditparams.PathParam) string {
	parts := strings.Split(path, "/")
	for i := range parts {
		parts[i] = unescape(cutParams(parts[i]))
	}
	for i := len(tags) - 1; i >= 0; i-- { // the first tag of a segment names it
		if t := tags[i]; t.Segment < len(parts) {
			parts[t.Segment] = "{" + t.Name + "}"
		}
	}
	return strings.Join(parts, "/")
}
