package policy

import (
	"slices"
	"strings"

	"github.com/agentready/agentready/config"
)

// The readings of a canonical path: the other paths a router, a framework
// or an upstream may route it as, which the enforcer decides on besides
// the path itself (its access stage; docs/enforcement.md, "One canonical
// target").

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
