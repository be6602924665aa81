package verify

import "errors"

// Method is how an agent's claim was proven.
type Method uint8

// Methods. None: the claim was not checked (the policy is not
// verified-only) or could not be proven.
const (
	None Method = iota
	// Signature: a Web Bot Auth signature (RFC 9421) by a key from a
	// trusted JWK Set.
	Signature
	// IPRange: the client address is in the operator's published ranges.
	IPRange
	// ReverseDNS: forward-confirmed reverse DNS in the operator's domains.
	ReverseDNS
)

var methodNames = [...]string{"none", "signature", "ip-range", "reverse-dns"}

func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler, so that a Method logs by
// name.
func (m Method) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// Identity is who an agent request claims to be and how that was proven.
type Identity struct {
	// Claimed is the agent policy the request claims ("claude"), "" when
	// it claims none.
	Claimed string
	// Method is how the claim was proven; None when it was not.
	Method Method
	// Source is what proved it: the Signature-Agent URL of the JWK Set
	// (Signature; its origin for a key directory at the well-known URI,
	// "https://chatgpt.com"), the range list's URL (IPRange) or the
	// forward-confirmed host name (ReverseDNS).
	Source string
	// KeyID is the signing key's RFC 7638 thumbprint (Signature).
	KeyID string
	// Agent is the agent the proof names, as the site's policy or the
	// known-agent data spells it: the claimed agent when its own source
	// proved it, the agent a trusted key directory belongs to (whatever
	// the User-Agent says), "" when the proof names only the operator (a
	// range list or domain shared by several of its agents).
	Agent string
	// Purpose is the agent's purpose as its operator declares it (its
	// Signature Agent Card, else the operator data agentready ships), one
	// of the enforce.Purpose constants; "" when the proof names no single
	// agent or its operator declares none.
	Purpose string
	// Reason is why a checked claim was not proven, one short stable name
	// (docs: "Verified agents"): "replayed-nonce", "lifetime-exceeds-policy",
	// "expired", "bad-signature", "untrusted-agent", "no-signature",
	// "unproven", "unavailable", ...; "" when the claim was proven or not
	// checked.
	Reason string
}

// Verified reports whether the claim was proven.
func (id Identity) Verified() bool { return id.Method != None }

// Errors of Verify. A claim that fails wraps ErrFailed; one that could not
// be checked, because a source the site relies on cannot answer, wraps
// ErrUnavailable. Neither gets the claimed policy's grants.
var (
	ErrFailed      = errors.New("verify: the agent's claim is not proven")
	ErrUnavailable = errors.New("verify: a verification source cannot answer")
)
