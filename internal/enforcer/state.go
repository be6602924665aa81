package enforcer

import (
	"net/http"
	"net/netip"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/webbotauth"
	"github.com/agentready/agentready/ratelimit"
)

// decision is one request's enforce.Decision and the pipeline's working
// state beside it: where the agent and capability sit in the policy, the
// limits being counted and the RateLimit headers that describe them.
type decision struct {
	enforce.Decision

	// class is Decision.Class as the classifier returned it.
	class policy.Class
	// agent and capability are Agent's and Capability's places in the
	// policy.
	agent, capability ref

	n         int // limits and Decision.Limits/Results in use
	client    ratelimit.Key
	limits    [3]ratelimit.Limit
	header    []string       // RateLimit-Policy value for these limits
	rateLimit rateLimitField // renders the RateLimit value
	// normal is the request's path in its canonical form, the one decided
	// on and forwarded, when it is not the path as sent; "" otherwise.
	normal string
}

// clientAddr is the client address of r (trusted proxies honoured, the
// one rate limits are keyed by), derived once a request: every stage that
// needs it reads it here.
func (e *Enforcer) clientAddr(r *http.Request, d *decision) netip.Addr {
	if !d.Client.IsValid() {
		d.Client = e.ip.Addr(r)
	}
	return d.Client
}

// setClass records how the client was classified, in both forms.
func (d *decision) setClass(c policy.Class) {
	d.class = c
	d.Class = enforce.Class{Kind: c.Kind.String(), Name: c.Name, Purpose: c.Purpose.String()}
	// A name is a claim until grade proves it.
	d.Grade = enforce.GradeAnonymous
	if c.Kind == policy.Declared || c.Kind == policy.Known {
		d.Grade = enforce.GradeClaimed
	}
}

// results is the store's results for the limits that applied.
func (d *decision) results() []ratelimit.Result { return d.Results[:d.n] }

// statusOf maps a denial to its HTTP status.
func statusOf(d *enforce.Decision) int {
	switch d.Outcome {
	case enforce.DenyIdentity:
		if d.Identity.Reason == webbotauth.ReasonReplay {
			// draft-ietf-webbotauth-httpsig-protocol-01 5.3: a replayed
			// nonce is answered 429, with a fresh Accept-Signature.
			return http.StatusTooManyRequests
		}
		return http.StatusForbidden
	case enforce.DenyPath, enforce.DenyCapability, enforce.DenyPreference:
		return http.StatusForbidden
	case enforce.DenyHost:
		return http.StatusMisdirectedRequest
	case enforce.DenyAuth:
		return http.StatusUnauthorized
	case enforce.DenyRate:
		return http.StatusTooManyRequests
	case enforce.StoreError:
		return http.StatusServiceUnavailable
	case enforce.DenySession:
		return http.StatusUnauthorized
	case enforce.DenyTarget, enforce.DenyBody:
		return http.StatusBadRequest
	}
	return 0
}

// ref is a place in one of the policy's lists (Agents, Capabilities),
// such that the zero Decision refers to none.
type ref int

// refTo is the ref of index i, -1 for none.
func refTo(i int) ref { return ref(i + 1) }

// index is the list index r refers to, -1 for none.
func (r ref) index() int { return int(r) - 1 }
