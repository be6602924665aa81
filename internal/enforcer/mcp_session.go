package enforcer

import (
	"context"
	"errors"
	"net/http"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/problem"
)

// Rules of MCP session refusals (docs/mcp.md, "Sessions").
const (
	// ruleMCPSession: the Mcp-Session-Id is not one agentready bound to
	// the caller (unknown, another's, malformed); answered 404, as MCP
	// answers an unknown session (MCP 2025-11-25, Streamable HTTP,
	// Session Management), the same answer whichever it is.
	ruleMCPSession = "MCP: unknown session"
	// ruleMCPSessionStore: the bindings could not be read; 503.
	ruleMCPSessionStore = "MCP: the session bindings are unavailable"
)

// errMCPSession is the error of every unknown session: the verdict (which
// says whether the id exists) is never sent.
var errMCPSession = errors.New("the Mcp-Session-Id is not a session of this client: send a new initialize")

// mcpSession is the stage of MCP sessions: an Mcp-Session-Id is honoured
// only for the owner it was bound to when the server created it
// (internal/mcpsession: the verified token subject, else the proven
// identity, else the agent policy and the client's network). It runs on
// every request to an MCP capability, after auth (the subject is known)
// and limits (guessing ids spends the guesser's tokens).
func (e *Enforcer) mcpSession(s *scope) bool {
	if e.mcp == nil || !s.mcp.rpc || s.limitOnly {
		return true
	}
	owner := mcpsession.Owner(mcpsession.Identity{Subject: s.subject, Issuer: s.issuer, Policy: s.Agent, Grade: s.Grade,
		Operator: s.Identity.Source, Method: s.Identity.Method.String(), Client: e.clientAddr(s)})
	p, err := e.mcp.Check(s.r.Context(), s.r.Header, owner)
	switch {
	case err != nil:
		s.Outcome, s.Rule, s.Err, s.Status = enforce.DenySession, ruleMCPSessionStore, err, http.StatusServiceUnavailable
		return false
	case p.Verdict.Unknown():
		e.log.Debug("agentready: unknown MCP session", "verdict", p.Verdict.String(), "agent", s.Agent)
		s.Outcome, s.Rule, s.Err, s.Status = enforce.DenySession, ruleMCPSession, errMCPSession, http.StatusNotFound
		return false
	}
	s.mcp.owner, s.mcp.presented = owner, &p
	return true
}

// mcpAnswer hears the server's answer to a request the MCP session stage
// let through, when its status and header are final, and updates the
// bindings (mcpsession.Sessions.Answered): a session the server creates
// is bound to the request's owner. A session the server hands out that is
// another's is not delivered (502).
type mcpAnswer struct {
	http.ResponseWriter
	e       *Enforcer
	r       *http.Request
	s       *scope
	heard   bool
	blocked bool // the answer is withheld: its writes are dropped
}

func (a *mcpAnswer) hear(status int) {
	if a.heard {
		return
	}
	a.heard = true
	h := a.ResponseWriter.Header()
	err := a.e.mcp.Answered(context.WithoutCancel(a.r.Context()), a.r.Method, *a.s.mcp.presented, a.s.mcp.owner, status, h)
	switch {
	case errors.Is(err, mcpsession.ErrBound):
		a.e.log.Error("agentready: the MCP server handed out a session bound to another client; not delivered", "capability", a.s.Capability)
		h.Del(mcpsession.Header)
		a.blocked = true
		writeRPCError(a.ResponseWriter, a.s, problem.Problem{Status: http.StatusBadGateway,
			Detail: "the MCP server answered with a session of another client"})
	case err != nil:
		a.e.log.Warn("agentready: MCP session binding", "err", err)
	}
}

func (a *mcpAnswer) WriteHeader(status int) {
	a.hear(status)
	if !a.blocked {
		a.ResponseWriter.WriteHeader(status)
	}
}

func (a *mcpAnswer) Write(b []byte) (int, error) {
	a.hear(http.StatusOK)
	if a.blocked {
		return len(b), nil
	}
	return a.ResponseWriter.Write(b)
}

// Flush flushes unless the answer is withheld; a stream's events go out as
// they come (the SDKs' text/event-stream).
func (a *mcpAnswer) Flush() {
	a.hear(http.StatusOK)
	if f, ok := a.ResponseWriter.(http.Flusher); ok && !a.blocked {
		f.Flush()
	}
}

// Unwrap is for http.ResponseController.
func (a *mcpAnswer) Unwrap() http.ResponseWriter { return a.ResponseWriter }
