package verifier

import (
	"errors"
	"strings"

	"github.com/agentready/agentready/internal/webbotauth"
	"github.com/agentready/agentready/verify"
)

// Reasons a claim is refused besides webbotauth's (webbotauth.Reason*,
// which name what failed in a signature).
const (
	// ReasonUnproven: no source proved the claim, and no signature was
	// involved (an address outside the ranges, a PTR outside the domains).
	ReasonUnproven = "unproven"
	// ReasonUnavailable: a source could not answer.
	ReasonUnavailable = webbotauth.ReasonUnavailable
)

// Reason names why Verify refused a claim, for the decision, logs and
// metric labels: "" for nil; the webbotauth reason of the signature the
// request offered (webbotauth.ReasonReplay, ReasonLifetime,
// ReasonBadSignature, ...), ReasonNoSignature when a policy that accepts
// signatures got none and nothing else proved it, ReasonUnavailable, or
// ReasonUnproven.
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, verify.ErrUnavailable) && !errors.Is(err, verify.ErrFailed):
		return ReasonUnavailable
	}
	if r := webbotauth.Reason(err); r != "" {
		return r
	}
	return ReasonUnproven
}

// AcceptSignature returns the Accept-Signature field value (RFC 9421 5.1)
// to send when a claim to the policy named name is refused and the policy
// accepts Web Bot Auth signatures (draft-ietf-webbotauth-httpsig-protocol-01
// 5.3): a request for a signature of the Web Bot Auth profile, with a
// fresh nonce unless Options.AllowNoNonce. It is "" when the policy is
// not verified-only or accepts no signature.
func (v *Verifier) AcceptSignature(name string) string {
	if v == nil {
		return ""
	}
	c := v.claims[strings.ToLower(name)]
	if c == nil || c.sigAgents == nil {
		return ""
	}
	if v.nonces {
		return webbotauth.AcceptSignature(webbotauth.NewNonce())
	}
	return webbotauth.AcceptSignature("")
}
