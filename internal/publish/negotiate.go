package publish

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/httpsyntax"
)

// This file reads the request headers that select a response: Accept with
// its profile parameter (content negotiation, RFC 9110 12.5.1 and RFC 6906)
// and the preconditions (RFC 9110 13). Both run on every request, so both
// scan the header text in place and allocate nothing on the paths a
// well-behaved client takes.

// Ranks of the media ranges that can select a descriptor, least specific
// first. A range with a profile parameter the descriptor satisfies ranks
// one above the same range without it (rank*2+1), so that
// `application/agent+json;q=0, application/agent+json;profile="v3"` selects
// by the profile, as RFC 9110 12.5.1's "most specific reference" rule asks.
const (
	rankNone      = iota
	rankAny       // */*
	rankApp       // application/*
	rankJSON      // application/json: agent+json is JSON (RFC 6838 4.2.8)
	rankAgentJSON // application/agent+json
)

// acceptable reports whether a descriptor may be served under the Accept
// field lines. No Accept (or only empty members) accepts anything
// (RFC 9110 12.5.1). Otherwise the most specific range that matches the
// descriptor decides, the largest weight winning among equally specific
// ones: the descriptor is served when that weight is above zero. A range
// matches when its type admits application/agent+json and every URI of its
// profile parameter, if any, is one of the descriptor's Profiles (RFC 6906
// lets profile name several URIs the representation conforms to at once).
// Other parameters are ignored. When no range matches, as for
// "Accept: text/html", negotiation has failed and the answer is 406
// (agent:// 7.3) rather than a representation the client did not ask for.
func (e *entry) acceptable(lines []string) bool {
	if len(lines) == 1 {
		switch lines[0] {
		case "", "*/*", "application/json", contentTypeAgentJSON:
			return true
		}
	}
	bestRank, bestQ, seen := rankNone, 0, false
	var sc acceptScanner
	for _, line := range lines {
		sc.s = line
		for {
			mt, ok := sc.mediaType()
			if !ok {
				break
			}
			seen = true
			rank, q, ok := e.matchRange(mt, &sc)
			if ok && (rank > bestRank || rank == bestRank && q > bestQ) {
				bestRank, bestQ = rank, q
			}
		}
	}
	if !seen {
		return true
	}
	return bestRank != rankNone && bestQ > 0
}

// matchRange rates one media range against the descriptor, reading its
// parameters from sc: its rank (see above), its weight in thousandths, and
// whether it matches at all. A range with an invalid weight is ignored, as
// an invalid list member may be. It always reads every parameter, so that
// sc is left at the next range.
func (e *entry) matchRange(mt string, sc *acceptScanner) (rank, q int, ok bool) {
	base := mediaRank(mt)
	q, ok = 1000, base != rankNone
	profile := false
	for {
		name, value, quoted, more := sc.param()
		if !more {
			break
		}
		if !ok {
			continue
		}
		switch {
		case equalFoldASCII(name, "q"):
			q, ok = parseQ(value)
		case equalFoldASCII(name, "profile"):
			served, empty := e.servesProfiles(value, quoted)
			ok = served
			profile = profile || !empty
		}
	}
	if !ok {
		return rankNone, 0, false
	}
	rank = base * 2
	if profile {
		rank++
	}
	return rank, q, true
}

// mediaRank classifies type/subtype, case-insensitively (RFC 9110 8.3.1).
func mediaRank(mt string) int {
	typ, sub, ok := strings.Cut(mt, "/")
	switch {
	case !ok:
		return rankNone
	case typ == "*" && sub == "*":
		return rankAny
	case !equalFoldASCII(typ, "application"):
		return rankNone
	case sub == "*":
		return rankApp
	case equalFoldASCII(sub, "json"):
		return rankJSON
	case equalFoldASCII(sub, "agent+json"):
		return rankAgentJSON
	}
	return rankNone
}

// servesProfiles reports whether every URI of a profile parameter value is
// one of the descriptor's profiles; empty reports a value naming none.
// Profile URIs compare exactly (RFC 6906 3: they are identifiers).
func (e *entry) servesProfiles(value string, quoted bool) (served, empty bool) {
	if contains(e.profiles, value) {
		return true, false // the usual case: one URI, no whitespace
	}
	if quoted && strings.IndexByte(value, '\\') >= 0 {
		// A quoted-pair in a URI list is odd enough to pay for unescaping.
		value = unescapeQuoted(value)
	}
	empty = true
	for value != "" {
		var uri string
		uri, value = nextField(value)
		if uri == "" {
			continue
		}
		empty = false
		if !contains(e.profiles, uri) {
			return false, false
		}
	}
	return true, empty
}

// nextField splits the first whitespace-separated field off s, as
// strings.Fields would without allocating the slice.
func nextField(s string) (field, rest string) {
	s = httpsyntax.TrimOWS(s)
	i := strings.IndexByte(s, ' ')
	if j := strings.IndexByte(s, '\t'); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// acceptScanner reads an Accept field line in one pass, without
// allocating: mediaType returns the next range's type/subtype, then param
// its parameters one by one until the range ends. A quoted-string is
// scanned once, so a comma or semicolon inside one (a profile URI may hold
// either) does not end anything.
type acceptScanner struct {
	s string // the unread rest, at a ';', a ',' or the end after a call
}

// mediaType skips empty members and returns the next range's media type,
// trimmed; false at the end of the line. The caller reads the parameters
// with param before asking for the next range.
func (sc *acceptScanner) mediaType() (string, bool) {
	s := sc.s
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
		i++
	}
	if i == len(s) {
		sc.s = ""
		return "", false
	}
	j := i
	for j < len(s) && s[j] != ';' && s[j] != ',' {
		j++
	}
	sc.s = s[j:]
	return httpsyntax.TrimOWS(s[i:j]), true
}

// param returns the current range's next parameter: its name, its value
// (quotes removed, quoted-pairs left as they are) and whether it was
// quoted; more is false when the range has ended. A parameter without "="
// has an empty value; text after a closing quote is skipped.
func (sc *acceptScanner) param() (name, value string, quoted, more bool) {
	s := sc.s
	if s == "" || s[0] == ',' {
		return "", "", false, false
	}
	s = s[1:] // the ';'
	i := 0
	for i < len(s) && s[i] != '=' && s[i] != ';' && s[i] != ',' {
		i++
	}
	name = httpsyntax.TrimOWS(s[:i])
	if i == len(s) || s[i] != '=' {
		sc.s = s[i:]
		return name, "", false, true
	}
	s = httpsyntax.TrimOWS(s[i+1:])
	if s != "" && s[0] == '"' {
		end := closingQuote(s)
		if end < 0 {
			sc.s = ""
			return name, s[1:], true, true // unterminated: take what there is
		}
		value, s = s[1:end], s[end+1:]
		sc.s = s[endOfParam(s):]
		return name, value, true, true
	}
	j := endOfParam(s)
	sc.s = s[j:]
	return name, httpsyntax.TrimOWS(s[:j]), false, true
}

// endOfParam is the index of the ';' or ',' that ends a parameter, or len(s).
func endOfParam(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ';' || s[i] == ',' {
			return i
		}
	}
	return len(s)
}

// closingQuote returns the index of the '"' closing the quoted-string that
// opens at s[0], skipping quoted-pairs, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unescapeQuoted resolves the quoted-pairs of a quoted-string's content.
func unescapeQuoted(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseQ parses a qvalue (RFC 9110 12.4.2) into thousandths.
func parseQ(v string) (int, bool) {
	if v == "" || v[0] != '0' && v[0] != '1' {
		return 0, false
	}
	q := int(v[0]-'0') * 1000
	if len(v) == 1 {
		return q, true
	}
	if v[1] != '.' || len(v) > 5 {
		return 0, false
	}
	scale := 100
	for i := 2; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	if q > 1000 {
		return 0, false
	}
	return q, true
}

// equalFoldASCII reports whether s equals lower (lower-case ASCII) under
// ASCII case folding, which is what HTTP tokens use (RFC 9110 5.6.2);
// strings.EqualFold would also fold Unicode, and costs more.
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	if s == lower {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// maxEchoedProfiles and maxEchoedProfileLen bound what a 406 repeats back
// from the request: the header is the client's, possibly an attacker's.
const (
	maxEchoedProfiles   = 8
	maxEchoedProfileLen = 256
)

// requestedProfiles collects the profile URIs of the ranges that could have
// selected a descriptor, for the 406 detail.
func requestedProfiles(lines []string) []string {
	var out []string
	var sc acceptScanner
	for _, line := range lines {
		sc.s = line
		for {
			mt, ok := sc.mediaType()
			if !ok {
				break
			}
			relevant := mediaRank(mt) != rankNone
			for {
				name, value, quoted, more := sc.param()
				if !more {
					break
				}
				if !relevant || !equalFoldASCII(name, "profile") {
					continue
				}
				if quoted {
					value = unescapeQuoted(value)
				}
				for _, uri := range strings.Fields(value) {
					if len(uri) > maxEchoedProfileLen {
						uri = strings.ToValidUTF8(uri[:maxEchoedProfileLen], "") + "…"
					}
					if !contains(out, uri) {
						if len(out) == maxEchoedProfiles {
							return out
						}
						out = append(out, uri)
					}
				}
			}
		}
	}
	return out
}

// notAcceptable answers 406 with a problem naming what was asked for and
// what is served (agent:// 7.3, 7.4, 9). It is the one response built per
// request: it depends on the request, and is rare.
func (h *Handler) notAcceptable(w http.ResponseWriter, r *http.Request, e *entry) {
	requested := requestedProfiles(r.Header["Accept"])
	supported := quoteAll(e.profiles)
	var detail string
	if len(requested) > 0 {
		detail = "no acceptable representation: Accept asks for profile(s) " + strings.Join(quoteAll(requested), ", ") +
			"; this descriptor is application/agent+json with profile(s) " + strings.Join(supported, ", ")
	} else {
		detail = "no acceptable representation: Accept admits no application/agent+json; " +
			"this descriptor is application/agent+json with profile(s) " + strings.Join(supported, ", ")
	}
	body := problemBody(http.StatusNotAcceptable, detail, requested, e.profiles)
	hdr := w.Header()
	hdr["Content-Type"] = valueProblemType
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	hdr["X-Content-Type-Options"] = valueNosniff
	hdr["Access-Control-Allow-Origin"] = valueAllowOrigin
	hdr["Vary"] = e.vary
	w.WriteHeader(http.StatusNotAcceptable)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strconv.Quote(s)
	}
	return out
}

// outcome is the result of evaluating a request's preconditions.
type outcome uint8

const (
	proceed outcome = iota
	notModified
	preconditionFailed
)

// evaluate applies RFC 9110 13.2.2's order to a GET or HEAD of e:
//
//  1. If-Match: false unless "*" or a strong match: 412.
//  2. Without If-Match, If-Unmodified-Since: a valid date earlier than
//     Last-Modified: 412.
//  3. If-None-Match: "*" or a weak match: 304.
//  4. Without If-None-Match, If-Modified-Since: a valid date no earlier
//     than Last-Modified: 304.
//
// If-Range only qualifies Range, which is not supported, so it is ignored.
// The date conditions are ignored when the document has no Last-Modified,
// when the field is not a valid HTTP-date, or when it has more than one
// member (RFC 9110 13.1.3, 13.1.4).
func (e *entry) evaluate(r *http.Request) outcome {
	hdr := r.Header
	if len(hdr) == 0 {
		return proceed
	}
	if im, ok := hdr["If-Match"]; ok {
		if !matchETag(im, e.etag[0], false) {
			return preconditionFailed
		}
	} else if ius := hdr["If-Unmodified-Since"]; len(ius) == 1 && e.lastModified != nil {
		if t, ok := parseHTTPDate(ius[0]); ok && e.modUnix > t {
			return preconditionFailed
		}
	}
	if inm, ok := hdr["If-None-Match"]; ok {
		if matchETag(inm, e.etag[0], true) {
			return notModified
		}
		return proceed
	}
	if ims := hdr["If-Modified-Since"]; len(ims) == 1 && e.lastModified != nil {
		if t, ok := parseHTTPDate(ims[0]); ok && e.modUnix <= t {
			return notModified
		}
	}
	return proceed
}

// matchETag reports whether an If-Match (strong comparison) or
// If-None-Match (weak comparison) list matches etag, a quoted strong
// entity-tag. "*" matches: the document exists. Malformed members are
// skipped; commas inside an opaque-tag are part of it (etagc allows them).
func matchETag(lines []string, etag string, weak bool) bool {
	for _, s := range lines {
		for {
			for s != "" && (s[0] == ' ' || s[0] == '\t' || s[0] == ',') {
				s = s[1:]
			}
			if s == "" {
				break
			}
			if s[0] == '*' {
				return true
			}
			isWeak := strings.HasPrefix(s, "W/")
			if isWeak {
				s = s[2:]
			}
			if s == "" || s[0] != '"' {
				// Not an entity-tag: skip to the next member.
				i := strings.IndexByte(s, ',')
				if i < 0 {
					break
				}
				s = s[i+1:]
				continue
			}
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				break
			}
			if s[:end+2] == etag && (weak || !isWeak) {
				return true
			}
			s = s[end+2:]
		}
	}
	return false
}

// parseHTTPDate parses an HTTP-date (RFC 9110 5.6.7) to Unix seconds. The
// IMF-fixdate every current client sends is parsed by hand, because
// time.Parse costs more than serving the whole document; the two obsolete
// forms recipients MUST also accept go to http.ParseTime.
func parseHTTPDate(s string) (int64, bool) {
	if t, ok := parseIMFFixdate(s); ok {
		return t, true
	}
	t, err := http.ParseTime(s)
	if err != nil {
		return 0, false
	}
	return t.Unix(), true
}

var weekdays = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

var months = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseIMFFixdate parses "Sun, 06 Nov 1994 08:49:37 GMT" exactly. As
// time.Parse does, it checks that the day name is one, not that it is the
// right one; it rejects dates that do not exist (31 Apr).
func parseIMFFixdate(s string) (int64, bool) {
	if len(s) != len("Sun, 06 Nov 1994 08:49:37 GMT") ||
		s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
		s[19] != ':' || s[22] != ':' || s[25:] != " GMT" {
		return 0, false
	}
	if !contains(weekdays[:], s[:3]) {
		return 0, false
	}
	month := 0
	for i, m := range months {
		if s[8:11] == m {
			month = i + 1
		}
	}
	day, ok1 := digits(s[5:7])
	year, ok2 := digits(s[12:16])
	hour, ok3 := digits(s[17:19])
	minute, ok4 := digits(s[20:22])
	sec, ok5 := digits(s[23:25])
	if month == 0 || !ok1 || !ok2 || !ok3 || !ok4 || !ok5 ||
		day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day {
		return 0, false // normalised: the day does not exist in that month
	}
	return t.Unix(), true
}

// digits parses a fixed-width run of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
