package verifier

import (
	"errors"
	"net/netip"
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
	if u, ok := err.(*unprovenError); ok {
		// The common refusal, named without walking the sentinels.
		if u.c.signs {
			return webbotauth.ReasonNoSignature
		}
		return ReasonUnproven
	}
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
	if c == nil || !c.signs {
		return ""
	}
	if !v.sig.o.AllowNoNonce {
		return webbotauth.AcceptSignature(webbotauth.NewNonce())
	}
	return webbotauth.AcceptSignature("")
}

// unprovenError is the failure of a claim that no source proved and none
// disproved decisively: it wraps verify.ErrFailed (and
// webbotauth.ErrNoSignature when the claim accepts signatures and none
// was offered). Its message is written only when read: a claimed agent's
// every request ends here, and most are never logged.
type unprovenError struct {
	c      *claim
	client netip.Addr
	why    error // the disproofs' own errors (reverse DNS's), nil when none had one
}

// unprovenLine is a source whose "no" carries no error: it writes its
// line of the refusal's message when the message is read.
type unprovenLine interface {
	unproven(client netip.Addr) string
}

func (e *unprovenError) Error() string {
	lines := []string{}
	for _, s := range e.c.sources {
		if l, ok := s.(unprovenLine); ok {
			lines = append(lines, l.unproven(e.client))
		}
	}
	if e.why != nil {
		lines = append(lines, e.why.Error())
	}
	return verify.ErrFailed.Error() + ": " + strings.Join(lines, "\n")
}

func (e *unprovenError) Is(target error) bool {
	return target == verify.ErrFailed || (e.c.signs && (target == webbotauth.ErrNoSignature || target == errNoSignature))
}

func (e *unprovenError) Unwrap() error { return e.why }

// disproofs joins the errors the disproofs of as carry.
func disproofs(as []answer) error {
	var errs []error
	for i := range as {
		if as[i].verdict == disproven && as[i].err != nil {
			errs = append(errs, as[i].err)
		}
	}
	return errors.Join(errs...)
}
