package publish

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// This file is the one piece of content negotiation the documents need:
// Accept with its profile parameter (RFC 9110 12.5.1, RFC 6906) for the
// agent:// descriptors. The standard library has no Accept parser, and
// mime.ParseMediaType reads MIME's grammar (unquoted URIs, repeated
// parameters and other lenient forms agents send are errors there).

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
	bestRank, bestQ, seen := rankNone, 0, false
	for _, member := range acceptMembers(lines) {
		seen = true
		rank, q, ok := e.matchRange(member)
		if ok && (rank > bestRank || rank == bestRank && q > bestQ) {
			bestRank, bestQ = rank, q
		}
	}
	return !seen || bestRank != rankNone && bestQ > 0
}

// matchRange rates one media range against the descriptor: its rank (see
// above), its weight in thousandths, and whether it matches at all. A range
// with an invalid weight is ignored, as an invalid list member may be.
func (e *entry) matchRange(member string) (rank, q int, ok bool) {
	parts := splitUnquoted(member, ';')
	base := mediaRank(strings.Trim(parts[0], " \t"))
	if base == rankNone {
		return rankNone, 0, false
	}
	q, profile := 1000, false
	for _, p := range parts[1:] {
		name, value := parameter(p)
		switch {
		case strings.EqualFold(name, "q"):
			if q, ok = parseQ(value); !ok {
				return rankNone, 0, false
			}
		case strings.EqualFold(name, "profile"):
			// Profile URIs compare exactly (RFC 6906 3: they are
			// identifiers); an empty value names none.
			for _, uri := range strings.Fields(value) {
				if !slices.Contains(e.profiles, uri) {
					return rankNone, 0, false
				}
				profile = true
			}
		}
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
	case !strings.EqualFold(typ, "application"):
		return rankNone
	case sub == "*":
		return rankApp
	case strings.EqualFold(sub, "json"):
		return rankJSON
	case strings.EqualFold(sub, "agent+json"):
		return rankAgentJSON
	}
	return rankNone
}

// acceptMembers splits Accept field lines into their non-empty members.
func acceptMembers(lines []string) []string {
	var out []string
	for _, line := range lines {
		for _, m := range splitUnquoted(line, ',') {
			if strings.Trim(m, " \t") != "" {
				out = append(out, m)
			}
		}
	}
	return out
}

// splitUnquoted splits s at every sep outside a quoted-string (RFC 9110
// 5.6.4), so that a ',' or ';' inside a quoted profile URI ends nothing.
func splitUnquoted(s string, sep byte) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// parameter splits "name=value" around its '=', trims both, and resolves a
// quoted value's quotes and quoted-pairs. An unterminated quoted-string
// gives what there is; a parameter without '=' has an empty value.
func parameter(p string) (name, value string) {
	name, value, _ = strings.Cut(p, "=")
	name, value = strings.Trim(name, " \t"), strings.Trim(value, " \t")
	if !strings.HasPrefix(value, `"`) {
		return name, value
	}
	var b strings.Builder
	for i := 1; i < len(value); i++ {
		c := value[i]
		if c == '"' {
			break
		}
		if c == '\\' && i+1 < len(value) {
			i++
			c = value[i]
		}
		b.WriteByte(c)
	}
	return name, b.String()
}

// parseQ parses a qvalue (RFC 9110 12.4.2: "0" to "1" with at most three
// decimals) into thousandths.
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
	for _, member := range acceptMembers(lines) {
		parts := splitUnquoted(member, ';')
		if mediaRank(strings.Trim(parts[0], " \t")) == rankNone {
			continue
		}
		for _, p := range parts[1:] {
			name, value := parameter(p)
			if !strings.EqualFold(name, "profile") {
				continue
			}
			for _, uri := range strings.Fields(value) {
				if len(uri) > maxEchoedProfileLen {
					uri = strings.ToValidUTF8(uri[:maxEchoedProfileLen], "") + "…"
				}
				if slices.Contains(out, uri) {
					continue
				}
				if len(out) == maxEchoedProfiles {
					return out
				}
				out = append(out, uri)
			}
		}
	}
	return out
}

// notAcceptable answers 406 with a problem naming what was asked for and
// what is served (agent:// 7.3, 7.4, 9).
func (e *entry) notAcceptable(w http.ResponseWriter, r *http.Request) {
	requested := requestedProfiles(r.Header.Values("Accept"))
	supported := quoteAll(e.profiles)
	detail := "no acceptable representation: Accept admits no application/agent+json; "
	if len(requested) > 0 {
		detail = "no acceptable representation: Accept asks for profile(s) " + strings.Join(quoteAll(requested), ", ") + "; "
	}
	detail += "this descriptor is application/agent+json with profile(s) " + strings.Join(supported, ", ")
	writeProblem(w, r, http.StatusNotAcceptable, detail, requested, e.profiles)
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strconv.Quote(s)
	}
	return out
}
