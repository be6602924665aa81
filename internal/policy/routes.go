package policy

import "strings"

// RouteTable maps an endpoint path, its wildcards' names dropped
// (routeKey), for a router that says which route a request reaches, to the capabilities whose endpoint it is.
type RouteTable map[string][]int

// NewRouteTable is the route table of p.
func NewRouteTable(p *Policy) RouteTable {
	t := RouteTable{}
	for i := range p.Capabilities {
		if path := p.Capabilities[i].Path; path != "" {
			k := routeKey(path)
			t[k] = append(t[k], i)
		}
	}
	return t
}

// Route returns the capability whose endpoint is the ServeMux pattern
// ("[METHOD ][HOST]/PATH") and whose method is m, or -1, and whether
// another capability's endpoint is that path. A pattern without a method
// serves every method from the capability's handler, so the capability at
// its path applies to any m (the first declared, when none declares m).
func (t RouteTable) Route(p *Policy, m, pattern string) (ci int, others bool) {
	anyMethod := true
	if i := strings.IndexAny(pattern, " \t"); i >= 0 {
		pattern, anyMethod = strings.TrimLeft(pattern[i:], " \t"), false
	}
	if i := strings.IndexByte(pattern, '/'); i > 0 {
		pattern = pattern[i:] // the host
	}
	caps := t[routeKey(pattern)]
	ci = -1
	for _, c := range caps {
		if p.Capabilities[c].MethodMatches(m) {
			ci = c
			break
		}
	}
	if ci < 0 && anyMethod && len(caps) > 0 {
		ci = caps[0]
	}
	return ci, len(caps) > 1 || ci < 0 && len(caps) > 0
}

// routeKey is a path pattern with each wildcard's name dropped: "{id}" and
// "{orderID}" are both "{}", "{path...}" is "{...}", and a final "{$}"
// (ServeMux: the path ends here) is dropped.
func routeKey(path string) string {
	if !strings.Contains(path, "{") {
		return path
	}
	segs := strings.Split(strings.TrimSuffix(path, "{$}"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			if strings.HasSuffix(s, "...}") {
				segs[i] = "{...}"
			} else {
				segs[i] = "{}"
			}
		}
	}
	return strings.Join(segs, "/")
}
