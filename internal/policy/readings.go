package policy

import (
	"slices"
	"strings"

	"github.com/agentready/agentready/config"
)

// A request reaches a handler by the reading its router, the middlewares
// in front of the router, or the upstream behind a proxy take of it, and
// they take it after agentready has decided. So an agent's target is
// first given its one canonical form (NormalPath), the form
// forwarded, and then decided on every reading one of them may route
// (docs/enforcement.md, "One canonical target"), and allowed only if
// every reading is; the capability any reading routes to applies:
//
//   - the canonical target, in its RFC 9309 form, and, when the path
//     escapes a sub-delim, unescaped (ServeMux unescapes; see
//     Canonical);
//   - each of those without the ";" parameter of each segment, unless
//     LiteralPathParameters (servlet containers strip it before routing:
//     StripParams), and the PATH_INFO after a script segment
//     (PHP, CGI, ASP.NET: PathInfo);
//   - the path without its query: routers route the path, so an Allow that
//     matches only because of the query ("/*.css$" and "/admin?.css")
//     cannot open a path a Disallow closes;
//   - the path with one trailing slash removed (chi's StripSlashes,
//     Express's non-strict routing) and with a format extension removed
//     (chi's URLFormat: from the last '.' of the last segment), each with
//     and without the query;
//   - with LenientRouting, each of those in ASCII lower case, against the
//     rules and endpoints in lower case, and with a trailing slash added
//     (Express's defaults: case-insensitive, non-strict);
//   - every method the request may be handled as: its own and each method
//     override it carries (internal/override: X-HTTP-Method-Override and its two
//     siblings, _method in the query or a POST body: Express's
//     method-override, Rails, Laravel, gorilla/handlers), read where
//     another capability's endpoint is at one of the request's paths, the
//     one place an override can change the decision (rules know no
//     method);
//   - with a router that says which route a request reaches (ServeMux's
//     Handler method), the capability whose endpoint is that route.

// OtherPaths returns the paths besides normal, the canonical path, a
// server may route: normal unescaped (ServeMux, when decodable), each
// without its ";" parameters (servlet containers; a decoder that strips
// after it decodes reads %3B as ";") and cut at its first ";" (Fastify
// 4), each without ASP.NET's cookieless-state segments, and each one's
// PATH_INFO after a script segment (PHP, CGI, ASP.NET).
func OtherPaths(normal string, decodable, params bool) []string {
	ps := []string{normal}
	if decodable {
		ps = append(ps, string(Decoded(nil, normal, "")))
	}
	if params {
		for _, p := range ps {
			ps = addReading(ps, StripParams(p))
			ps = addReading(ps, CutParams(p))
		}
	}
	for _, p := range ps {
		ps = addReading(ps, StripCookieless(p))
	}
	for _, p := range ps {
		first, last := PathInfo(p)
		ps = addReading(ps, first)
		ps = addReading(ps, last)
	}
	return ps[1:]
}

// addReading adds the path p to ps unless it is "" or there already.
func addReading(ps []string, p string) []string {
	if p == "" || slices.Contains(ps, p) {
		return ps
	}
	return append(ps, p)
}

// QuerySensitive reports whether a rule may decide a path and the path
// with a query differently: whether a pattern holds a '?', a '$', or a '*'
// before its end. Otherwise every rule is a prefix of the path whenever
// it is one of the path with its query (a literal without '?' cannot
// reach past the path), and one match decides both readings.
func QuerySensitive(r *Rules) bool {
	for _, rule := range r.List() {
		pat := strings.TrimSuffix(rule.Pattern, "*")
		if strings.ContainsAny(pat, "?$*") {
			return true
		}
	}
	return false
}

// Readings returns the lengths of the prefixes of path a router may
// route it as: path itself, without one trailing slash, without the
// format extension of its last segment (chi's URLFormat cuts at the last
// '.' after the last '/'), and both in either order. Each is a prefix, so
// no reading is copied.
func Readings(path string, ends *[4]int) []int {
	if last := path[strings.LastIndexByte(path, '/')+1:]; last != "" && strings.IndexByte(last, '.') < 0 {
		// No trailing slash, no extension: the one reading.
		ends[0] = len(path)
		return ends[:1]
	}
	n := 0
	add := func(l int) {
		for _, have := range ends[:n] {
			if have == l {
				return
			}
		}
		if n < len(ends) && l > 0 {
			ends[n] = l
			n++
		}
	}
	strip := func(l int) int {
		if l > 1 && path[l-1] == '/' {
			return l - 1
		}
		return l
	}
	ext := func(l int) int {
		seg := strings.LastIndexByte(path[:l], '/') + 1
		if dot := strings.LastIndexByte(path[seg:l], '.'); dot >= 0 {
			return seg + dot
		}
		return l
	}
	add(len(path))
	add(strip(len(path)))
	add(ext(len(path)))
	add(ext(strip(len(path))))
	add(strip(ext(len(path))))
	return ends[:n]
}

// FoldCase returns the canonical target t with its ASCII letters in lower
// case, but for the hex digits of escapes, which stay upper case as
// canonical patterns keep them.
func FoldCase(t string) string {
	i := 0
	for ; i < len(t); i++ {
		if c := t[i]; c >= 'A' && c <= 'Z' || c == '%' {
			break
		}
	}
	if i == len(t) {
		return t
	}
	b := []byte(t)
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '%':
			i += 2
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// FoldSite returns a copy of s whose path patterns and endpoints are in
// lower case (FoldCase), for LenientRouting.
func FoldSite(s *config.Site) *config.Site {
	f := *s
	fold := func(pats []string) []string {
		out := make([]string, len(pats))
		for i, p := range pats {
			out[i] = FoldCase(p)
		}
		return out
	}
	f.Access.Allow, f.Access.Disallow = fold(s.Access.Allow), fold(s.Access.Disallow)
	f.Capabilities = append([]config.Capability(nil), s.Capabilities...)
	for i := range f.Capabilities {
		f.Capabilities[i].Endpoint = FoldCase(f.Capabilities[i].Endpoint)
	}
	f.Usage.Paths = append([]config.PathUsage(nil), s.Usage.Paths...)
	for i := range f.Usage.Paths {
		f.Usage.Paths[i].Path = FoldCase(f.Usage.Paths[i].Path)
	}
	return &f
}
