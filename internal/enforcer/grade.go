package enforcer

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/verifier"
	"github.com/agentready/agentready/internal/webbotauth"
	"github.com/agentready/agentready/verify"
)

// grade is the stage that works out how much of who the client is was
// proven (docs/design.md, "Grades of identity") and the agent policy that
// applies, given s.ai, the one its User-Agent names (or "*"):
//
//   - a claim the site checks (a verified-only or graded policy, or a
//     known agent when the site grades undeclared ones) is verified by
//     the claim's own sources;
//   - any other agent request that carries a Web Bot Auth signature is
//     proven by whichever trusted key directory signed it, and the
//     directory's agent is who it is, whatever its User-Agent says;
//   - a proven client gets its policy's proven form (config.AgentPolicy.
//     Proven), an undeclared one the "*" policy's; an unproven claim to a
//     verified-only policy is refused (DenyIdentity) or, with
//     FallBack or while a source cannot answer, served as "*" (an outage
//     upstream never locks an honest agent out, and never hands out
//     grants); any other unproven claim keeps its own, claimed, grants.
//
// The grade is set by setClass (claimed or anonymous) and raised here.
func (e *Enforcer) grade(s *scope) bool {
	v := e.verifier
	if v == nil {
		return true
	}
	r, ai, record, d := s.r, s.ai, !s.explain, s
	p := e.p
	var named string // the name a checked claim is made to
	switch {
	case d.class.Kind == policy.Declared && ai >= 0 && ai != p.Default && p.Agents[ai].Checked():
		named = p.Agents[ai].Name
	case d.class.Kind == policy.Known && v.Checks(d.class.Name):
		named = d.class.Name
	}
	var id verify.Identity
	var err error
	if named != "" {
		id, err = v.Verify(r.Context(), r, e.clientAddr(s), e.authority(r), named, record)
		if err != nil && len(r.Header["Signature-Input"]) > 0 && otherSigner(err) {
			// The claim's own sources did not prove it; a signature by
			// another trusted directory proves who the client is (the
			// directory's agent), whatever it claims.
			sid, serr := v.Identify(r.Context(), r, e.authority(r), record)
			switch {
			case serr == nil:
				id, err, named = sid, nil, ""
			case !errors.Is(serr, webbotauth.ErrNoSignature) && !errors.Is(err, verify.ErrUnavailable):
				// The signature offered failed (replayed, expired, ...):
				// that says more than the claim's own sources' "no".
				err = serr
			}
		}
	} else {
		id, err = v.Identify(r.Context(), r, e.authority(r), record)
		if errors.Is(err, webbotauth.ErrNoSignature) {
			return true // nothing offered, nothing checked
		}
	}
	id.Claimed = d.class.Name
	d.Identity = id
	if err == nil {
		e.proven(ai, named != "", s)
		return true
	}
	d.Err = err
	d.Identity.Reason = verifier.Reason(err)
	unavailable := errors.Is(err, verify.ErrUnavailable)
	if unavailable {
		// Logged at most once a minute; the decision hook counts each.
		now := clock.Monotonic().UnixNano()
		if last := e.unverifiedLog.Load(); now-last > int64(time.Minute) && e.unverifiedLog.CompareAndSwap(last, now) {
			e.log.Warn("agentready: a verification source cannot answer; the claims it would prove are served as claimed",
				"agent", named, "err", err)
		}
	}
	if named == "" || d.class.Kind != policy.Declared || !p.Agents[ai].Verified {
		return true // claimed: the policy's own grants
	}
	a := &p.Agents[ai]
	if !unavailable && !a.FallBack {
		d.Outcome, d.Rule = enforce.DenyIdentity, "Agent: "+a.Name+" (verified-only)"
		return false
	}
	d.Unverified = true
	// d.class keeps the claim: sessions stay bound to the identity the
	// agent claims (Identify), and each request's grants are decided anew.
	s.setAgent(p, p.Default)
	return true
}

// otherSigner reports whether a claim that failed with err may still be
// proven by another directory's signature: its own sources said no or
// could not answer, or the signature is from a directory the claim does
// not trust. A signature the claim's own directory refused (bad, expired,
// replayed, an unknown key) is not checked a second time: it would fail
// again, and a hostile client would have made the server verify it twice.
func otherSigner(err error) bool {
	switch verifier.Reason(err) {
	case verifier.ReasonUnproven, verifier.ReasonUnavailable, webbotauth.ReasonNoSignature, webbotauth.ReasonUntrusted:
		return true
	}
	return false
}

// proven records in d that its client is proven and makes the policy that
// applies the one in force: the one its claim named (checked), else the
// declared policy of the agent a signature proved, else "*"; in its proven
// form when it has one.
func (e *Enforcer) proven(ai int, checked bool, d *scope) {
	p := e.p
	d.Grade = enforce.GradeProven
	if !checked || d.Identity.Purpose != "" {
		// A signature that did not prove the claim proves another agent:
		// its purpose is that agent's, unknown when its operator declares
		// none, never the purpose of the name the User-Agent claims.
		d.class.Purpose = policy.PurposeNamed(d.Identity.Purpose)
		d.Class.Purpose = d.class.Purpose.String()
	}
	if !checked {
		// Nor are its grants the claimed policy's: the declared policy of
		// the agent the directory belongs to, else "*".
		ai = p.Default
		if pi, ok := e.declared[strings.ToLower(d.Identity.Agent)]; ok && d.Identity.Agent != "" {
			ai = pi
		}
	}
	if ai >= 0 && p.Agents[ai].Proven >= 0 {
		ai = p.Agents[ai].Proven
	}
	d.setAgent(p, ai)
}

// authority is the request's authority as the server received it: the
// Host header (the Verifier normalises it and believes it only when it is
// one of the site's). X-Forwarded-Host is not read: a proxy that a client
// could make forward another site's authority would let a signature made
// for that site be replayed here. A proxy in front must pass Host through
// (nginx: proxy_set_header Host $host).
func (e *Enforcer) authority(r *http.Request) string { return r.Host }
