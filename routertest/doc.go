// Package routertest holds no code of its own: its tests run agentready
// behind real routers (net/http.ServeMux and chi) and check the router
// invariant of docs/design.md ("A path decision no router disagrees with"). It is a module of its own so that
// the routers it tests with never become dependencies of the library.
package routertest
