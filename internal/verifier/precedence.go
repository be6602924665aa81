package verifier

import (
	"errors"

	"github.com/agentready/agentready/verify"
)

// verdict is a source's answer to a claim: the draft's three outcomes of
// a signature check (draft-ietf-webbotauth-httpsig-protocol-01 C.1:
// verified, invalid, unverified), which docs/design.md ("Verified
// agents", "Three answers") gives every source.
type verdict uint8

const (
	disproven verdict = iota // the source answered, and not for the claim
	unknown                  // the source cannot tell
	proven                   // the source proves the claim
)

// answer is what one source said of one request's claim.
type answer struct {
	verdict
	// err says why: for unknown, what cannot answer (nil: the source
	// has nothing to say of this request, as when it offers no
	// signature); for disproven, the refusal (nil: see unprovenError).
	err error
	// decisive: a disproof no proof outweighs (a signature offered that
	// fails).
	decisive bool
	// weak: an unknown the client can cause (its own reverse zone made
	// slow), which never outweighs another source's disproof.
	weak bool
	// A proof's Identity: names says it names the agent, not only its
	// operator (docs/design.md, "A source names what it covers").
	method        verify.Method
	source, keyID string
	names         bool
}

// decide applies the precedence rules to the answers of a claim's
// sources, given in the providers' order (newVerifier: the signature
// first, then the range lists, then reverse DNS), and returns the
// verdict, the answer that carries it (-1 when it is no single one's)
// and whether it is final, so that the sources after are not asked:
//
//  1. The first answer that is a proof or a decisive disproof settles
//     the claim. A bad signature is decisive, "it fails the claim even
//     when the address would have proven it" (docs/design.md, "Verified
//     agents"); the signature comes first so that a later proof does not
//     hide it. One proof suffices: any source bound to the claim proves
//     it ("Sources are bound to claims"), and the dearer ones (reverse
//     DNS may wait DNSBudget) are not asked.
//  2. Otherwise a source that cannot tell makes the claim unknown: "an
//     upstream outage never locks out an honest agent and never hands
//     out grants" ("Three answers": the * policy, logged). A request
//     that offers no signature is not such a source: the draft's
//     "unverified" is treated like an unsigned request (C.1).
//  3. A weak unknown does not count once another source answered no:
//     reverse DNS is the one network wait on the request path ("Nothing
//     on the request path waits for the network"), and the client runs
//     its own reverse zone, so it could turn a range list's "no" into
//     "cannot tell" by making its PTR records slow.
//  4. Otherwise the claim is disproven (unproven).
func decide(as []answer) (v verdict, at int, final bool) {
	for i := range as {
		if as[i].verdict == proven || as[i].decisive {
			return as[i].verdict, i, true
		}
	}
	for i := range as {
		if counts(as, i) {
			return unknown, -1, false
		}
	}
	return disproven, -1, false
}

// counts reports whether as[i] is an unknown that makes the claim
// unknown (decide, rules 2 and 3).
func counts(as []answer, i int) bool {
	if as[i].verdict != unknown || as[i].err == nil {
		return false
	}
	for j := range as {
		if as[i].weak && as[j].verdict == disproven {
			return false
		}
	}
	return true
}

// unavailable joins the errors of the unknowns that count.
func unavailable(as []answer) error {
	var errs []error
	for i := range as {
		if counts(as, i) {
			errs = append(errs, as[i].err)
		}
	}
	return errors.Join(errs...)
}
