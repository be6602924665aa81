package enforcer

import (
	"net/http"
	"slices"

	"github.com/agentready/agentready/internal/mcplist"
	"github.com/agentready/agentready/internal/mcprpc"
)

// listing is whether the answer to a request may list tools.
type listing uint8

const (
	listNone listing = iota
	// listAnswer: a tools/list, answered for its id.
	listAnswer
	// listStream: an answer that is no one request's (a GET stream, its
	// replay with Last-Event-ID, a subscriptions/listen, a batch): every
	// tools/list response in it.
	listStream
)

// listingOf is what the messages of a POST ask the server to list.
func listingOf(msgs []mcprpc.Message, batch bool) listing {
	lists := slices.ContainsFunc(msgs, func(m mcprpc.Message) bool {
		return m.Method == "tools/list" || m.Method == "subscriptions/listen"
	})
	switch {
	case !lists:
		return listNone
	case batch || msgs[0].Method == "subscriptions/listen":
		return listStream
	}
	return listAnswer
}

// listFilter is the writer that shows the caller only the tools it may
// call (internal/mcplist): the capability lists the tool, the agent
// policy grants it, and a verified token holds its scopes; a gateway's
// tool, also the capability it calls: the policy grants that one too,
// and the token holds its scopes (the call is refused otherwise, as the
// direct call would be). It is nil when the answer lists no tools. The
// server's answer is asked for without a Content-Encoding: a compressed
// one cannot be read, and fails closed.
func (e *Enforcer) listFilter(w http.ResponseWriter, r *http.Request, s *scope) *mcplist.Writer {
	if s.mcp.listing == listNone || s.ci < 0 {
		return nil
	}
	c, ag := &e.p.Capabilities[s.ci], s.ai
	holds := func(scopes []string) bool {
		return s.tokenScopes == nil || !slices.ContainsFunc(scopes, func(sc string) bool { return !slices.Contains(s.tokenScopes, sc) })
	}
	allow := func(name string) bool {
		ti, ok := c.Tool(name)
		if !ok || ag >= 0 && !e.p.Agents[ag].ToolPermitted(s.ci, ti) || !holds(c.Tools[ti].Decl.Auth.Scopes) {
			return false
		}
		called := c.Tools[ti].Calls
		if called < 0 {
			return true
		}
		return (ag < 0 || e.p.Agents[ag].Permitted[called]) && holds(e.p.Capabilities[called].Decl.Auth.Scopes)
	}
	r.Header.Del("Accept-Encoding")
	var id []byte
	if s.mcp.listing == listAnswer {
		id = s.mcp.id
	}
	return mcplist.New(w, id, allow, 0)
}
