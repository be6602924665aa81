package enforcer

import (
	"net/netip"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/session"
)

// probes are the requests served without enforcement (Config.ProbePaths,
// Config.ProbeNets).
type probes struct {
	paths map[string]bool
	nets  []netip.Prefix
}

// probe passes an infrastructure probe without enforcement (a probe
// path, a probe network). A request presenting a session is an agent's
// action, to record, whoever sends it: never a probe.
func (e *Enforcer) probe(s *scope) bool {
	r := s.r
	if (e.probes.paths == nil && e.probes.nets == nil) || s.limitOnly || len(r.Header[session.HeaderSession]) != 0 {
		return true
	}
	if e.probes.paths[r.URL.Path] && r.URL.RawPath == "" && plainGet(r) {
		// The path as sent: a router that routes the raw path (chi) would
		// take "/health%7A" for another one. A probe GETs it; another
		// method or a query may reach another handler.
		s.Rule = enforce.RuleProbePath
	} else if len(e.probes.nets) > 0 && e.fromProbeNetwork(s) {
		s.Rule = enforce.RuleProbeNetwork
	}
	return s.Rule == "" // else a Pass: nothing later applies
}

// fromProbeNetwork reports whether r comes from a probe network. The
// client address is the one rate limits use, but a proxy's address does
// not pass for a client it forwards: when r carries a forwarding header,
// the address must be a client that X-Forwarded-For named, not the peer or
// a trusted proxy standing in for a client it did not name (no usable
// X-Forwarded-For, only Forwarded or X-Real-IP, an entry that does not
// parse, a proxy that is not trusted). A load balancer's own health check
// carries no forwarding header and passes.
func (e *Enforcer) fromProbeNetwork(s *scope) bool {
	r, addr := s.r, e.clientAddr(s)
	in := false
	for _, n := range e.probes.nets {
		if n.Contains(addr) {
			in = true
			break
		}
	}
	if !in {
		return false
	}
	h := r.Header
	if len(h["X-Forwarded-For"]) == 0 && len(h["Forwarded"]) == 0 && len(h["X-Real-Ip"]) == 0 {
		return true
	}
	peer, _ := clientip.ParseHostPort(r.RemoteAddr)
	return addr != peer && !e.ip.Trusted(addr)
}
