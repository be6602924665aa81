package enforcer

import (
	"errors"
	"net/http"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/reqbody"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/verifier"
	"github.com/agentready/agentready/verify"
)

// verifyClaim checks d's claim to the verified-only agent policy ai and
// returns the agent policy that applies: ai when the claim is proven; the
// "*" policy (or -1) when it cannot be proven and the policy falls back, or
// when a source cannot answer (an upstream outage never locks an honest
// agent out, and never hands out grants); ok is false when the claim is
// refused (DenyIdentity).
func (e *Enforcer) verifyClaim(r *http.Request, ai int, record bool, d *decision) (int, bool) {
	a := &e.p.Agents[ai]
	id, err := e.verifier.Verify(r.Context(), r, e.ip.Addr(r), e.authority(r), a.Name, record)
	if id.Claimed == "" {
		id.Claimed = a.Name
	}
	d.Identity = id
	if err == nil {
		return ai, true
	}
	d.Err = err
	d.Identity.Reason = verifier.Reason(err)
	unavailable := errors.Is(err, verify.ErrUnavailable)
	if !unavailable && !a.FallBack {
		d.Outcome, d.Rule = enforce.DenyIdentity, "Agent: "+a.Name+" (verified-only)"
		return ai, false
	}
	if unavailable {
		// Logged at most once a minute; the decision hook counts each.
		now := time.Now().UnixNano()
		if last := e.unverifiedLog.Load(); now-last > int64(time.Minute) && e.unverifiedLog.CompareAndSwap(last, now) {
			e.log.Warn("agentready: a verification source cannot answer; claims it would check are served under \"*\"",
				"policy", a.Name, "err", err)
		}
	}
	d.Unverified = true
	// d.class keeps the claim: sessions stay bound to the identity the
	// agent claims (Identify), and each request's grants are decided anew.
	def := e.p.Default
	d.Agent, d.agent = "", refTo(def)
	if def >= 0 {
		d.Agent = e.p.Agents[def].Name
	}
	return def, true
}

// authority is the request's authority as the server received it: the
// Host header (the Verifier normalises it and believes it only when it is
// one of the site's). X-Forwarded-Host is not read: a proxy that a client
// could make forward another site's authority would let a signature made
// for that site be replayed here. A proxy in front must pass Host through
// (nginx: proxy_set_header Host $host).
func (e *Enforcer) authority(r *http.Request) string { return r.Host }

// verifySigned checks the RFC 9421 signature of a request to a capability
// declaring Auth: hmac. The digest a signature may cover is over the whole
// body, which is read first, bounded by the capability's BodyLimit, and
// given back afterwards whatever the verifier did with it: the handler,
// or the enforced declaration when a shadow's verifies, reads it as sent.
func (e *Enforcer) verifySigned(r *http.Request, c *config.Capability, record bool) error {
	if r.Body != nil && r.Body != http.NoBody {
		orig := r.Body
		limit := resolve.BodyLimit(c)
		b, err := reqbody.Buffer(r, limit)
		if err != nil {
			return reqbody.ErrRead
		}
		if int64(len(b)) > limit {
			return reqbody.ErrTooLarge
		}
		defer func() { r.Body = reqbody.Of(b, orig) }()
	}
	_, err := e.signed.Verify(r, record)
	return err
}

// setContentUsage adds the Content-Usage header of the request's target
// (draft-ietf-aipref-attach-05 section 2) to the response: the value was
// rendered once, so this allocates nothing. The target is matched in the
// form the enforcement of config.Usage matches (access): the RFC 9309
// canonical form of the path as sent and its query, so that the header
// says what a crawler is held to.
func (e *Enforcer) setContentUsage(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.RawPath
	if raw == "" {
		raw = r.URL.EscapedPath()
	}
	rule := e.usage.Match(string(policy.Canonical(nil, raw, r.URL.RawQuery)))
	if rule.Header != nil {
		w.Header()["Content-Usage"] = rule.Header
	}
}
