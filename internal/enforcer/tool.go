package enforcer

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/mcprpc"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"
)

// tool is the stage of MCP tools (docs/mcp.md), before capability's, so
// that every refusal of an MCP message answers its id: a POST to an MCP
// capability is read, bounded by the capability's BodyLimit and given
// back as sent, and a tools/call is held to its tool. The tool must be one
// the capability lists, when it lists any, and one the agent policy
// grants (the capability whole, or CAPABILITY/TOOL); the stages after
// hold it to the tool's scopes and limit. Every other method is held to
// the capability alone. A body read two ways (headers that disagree with
// it, a member spelt twice) is refused (DenyTarget), as is a batch that
// calls two tools: one request, one decision. A batch of calls of one
// tool is held to it, each call taking its tokens.
func (e *Enforcer) tool(s *scope) bool {
	if s.ci < 0 {
		return true
	}
	c := &e.p.Capabilities[s.ci]
	if resolve.Protocol(c.Decl) != config.ProtocolMCP {
		return true
	}
	r := s.r
	s.Capability, s.mcp.rpc = c.ID, true
	// A capability that lists no tools decides its calls as one, as it did
	// before tools were declared: its body decides nothing. Otherwise a
	// POST, or a request of another method that carries a body (an app's
	// method override, internal/override, could route it as one), is read.
	if len(c.Tools) == 0 {
		return true
	}
	if r.Method != http.MethodPost && (r.Body == nil || r.Body == http.NoBody) {
		// A GET stream may carry (or replay, with Last-Event-ID) a
		// tools/list answer: it is filtered as any (mcp_list.go).
		s.mcp.listing = listStream
		return true
	}
	body, ok := readBody(s, c.Decl)
	if !ok {
		return false
	}
	msgs, batch, err := mcprpc.Parse(body)
	if err == nil {
		err = mcprpc.HeadersAgree(r.Header, msgs, batch)
		s.mcp.mismatch = err != nil
	}
	if err != nil {
		s.Outcome, s.Rule, s.Err = enforce.DenyTarget, "MCP: "+err.Error(), err
		return false
	}
	s.mcp.id = msgs[0].ID
	s.mcp.listing = listingOf(msgs, batch)
	calls := 0
	for i := range msgs {
		if msgs[i].Method != mcprpc.ToolsCall {
			continue
		}
		if calls > 0 && msgs[i].Name != s.mcp.asked {
			// Each call would need a tool limit of its own; a request
			// is decided once, and a batch (MCP 2025-03-26) is rare.
			err := fmt.Errorf("a batch calls the tools %q and %q: agentready decides one tool a request; send them apart", s.mcp.asked, msgs[i].Name)
			s.Outcome, s.Rule, s.Err = enforce.DenyTarget, "MCP: "+err.Error(), err
			return false
		}
		calls++
		s.mcp.asked = msgs[i].Name
	}
	if calls == 0 {
		return true
	}
	ti, ok := c.Tool(s.mcp.asked)
	if !ok {
		s.Outcome, s.Rule = enforce.DenyCapability, c.ToolsRule
		return false
	}
	// The declared name, never the request's: metrics label by it.
	s.mcp.ti, s.Tool = ti, c.Tools[ti].Name
	if s.ai >= 0 && !e.p.Agents[s.ai].ToolPermitted(s.ci, ti) {
		s.Outcome, s.Rule = enforce.DenyCapability, e.p.Agents[s.ai].Rule
		return false
	}
	// A batch of calls of the tool takes each call's tokens, all or none
	// (limits.go); more than a limit holds could never pass.
	s.mcp.calls = calls
	for _, l := range [...]policy.Limit{c.Limit, c.Tools[ti].Limit} {
		if !l.IsZero() && calls*max(l.Cost, 1) > l.Rate {
			err := fmt.Errorf("a batch of %d calls of %q needs %d tokens of %q, which holds %d", calls, s.Tool, calls*max(l.Cost, 1), l.Name, l.Rate)
			s.Outcome, s.Rule, s.Err = enforce.DenyTarget, "MCP: "+err.Error(), err
			return false
		}
	}
	return true
}

// JSON-RPC error codes of a refused MCP message.
const (
	// rpcHeaderMismatch: the Mcp-Method or Mcp-Name header disagrees with
	// the body (MCP 2026-07-28, Streamable HTTP).
	rpcHeaderMismatch = -32020
	// rpcInvalidRequest: a body agentready cannot read one way only
	// (JSON-RPC 2.0, 5.1).
	rpcInvalidRequest = -32600
	// rpcRefused: the site's declaration refuses the call; the HTTP
	// status and error.data say why (JSON-RPC 2.0 5.1 leaves -32000 to
	// -32099 to the server).
	rpcRefused = -32001
)

// writeRPCError answers a refused MCP POST with the HTTP status and
// headers of any refusal and a JSON-RPC error for the request's id (null
// when it has none), whose data is the problem (RFC 9457 members), so
// that an MCP client can show its user why.
func writeRPCError(w http.ResponseWriter, d *scope, prob problem.Problem) {
	code := rpcRefused
	switch {
	case d.mcp.mismatch:
		code = rpcHeaderMismatch
	case d.Outcome == enforce.DenyTarget:
		code = rpcInvalidRequest
	}
	data, err := prob.MarshalJSON()
	if err != nil {
		prob.Extra = nil
		data, _ = prob.MarshalJSON()
	}
	msg := prob.Detail
	if msg == "" {
		msg = http.StatusText(prob.Status)
	}
	body := mcprpc.ErrorResponse(d.mcp.id, code, msg, data)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(prob.Status)
	_, _ = w.Write(body)
}
