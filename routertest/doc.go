// Package routertest holds no code of its own: its tests run agentready
// behind real router stacks (net/http.ServeMux; chi plain and with
// StripSlashes, RedirectSlashes, URLFormat and CleanPath on either side of
// agentready; gorilla/mux with StrictSlash(true); a method-override
// middleware after agentready) and check the router invariant of
// docs/design.md ("A path decision no router disagrees with", and issue
// 22: after the router's own normalisations). It is a module of its own so
// that the routers it tests with never become dependencies of the library.
package routertest
