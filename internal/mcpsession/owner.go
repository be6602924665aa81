package mcpsession

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"net/netip"

	"github.com/agentready/agentready/enforce"
)

// Identity is who a request comes from, as the enforcer established it:
// plain values, so that the package depends on no enforcer type.
type Identity struct {
	// Subject is the subject of a credential agentready verified (a JWT's
	// "sub"), "" when none was verified. A credential only seen present
	// proves nothing and must not be given here.
	Subject string
	// Issuer is who vouches for Subject (a JWT's "iss"), "" when unknown:
	// the same subject from two authorization servers is two owners.
	Issuer string
	// Policy is the name of the agent policy that applied ("GPTBot", "*").
	Policy string
	// Grade is enforce.GradeProven, GradeClaimed or GradeAnonymous.
	Grade string
	// Operator and Method are the proven identity: what proved it (the
	// key directory, range list or host name: verify.Identity.Source) and
	// how (verify.Identity.Method's name). They count only when Grade is
	// enforce.GradeProven.
	Operator, Method string
	// Client is the client's address (trusted proxies honoured). It counts
	// only when nothing else is proven.
	Client netip.Addr
}

// Owner returns the owner key of id: a SHA-256 digest in hex (64 bytes),
// so that a store holds neither subjects nor addresses. It is derived
// from, in order of strength:
//
//   - the verified token subject (and issuer) where there is one: the
//     owner keeps its session from another network or agent;
//   - else, for a proven client, the agent policy, grade and proven
//     identity (operator and method): a crawler's many addresses share its
//     sessions;
//   - else the agent policy and grade, and the client's /24 (IPv4) or /64
//     (IPv6). A User-Agent is anyone's to send, so a claimed agent is as
//     anonymous as a browser here: without the network, anyone claiming
//     the same name would own its sessions. The prefix, not the address,
//     so that a client moving within its network (IPv6 privacy addresses,
//     a NAT pool) keeps its session; a client without a valid address
//     shares its owner with every other such client of the same policy.
//
// The forms are told apart by a tag, and every field is length-prefixed,
// so no two identities share a key by concatenation.
func Owner(id Identity) string {
	var buf [512]byte // most identities fit: Sum256 of it then allocates nothing
	b := buf[:0]
	switch {
	case id.Subject != "":
		b = fields(b, "subject", id.Issuer, id.Subject)
	case id.Grade == enforce.GradeProven:
		b = fields(b, "proven", id.Policy, id.Grade, id.Operator, id.Method)
	default:
		var nb [64]byte
		net := nb[:0]
		if p := network(id.Client); p.IsValid() {
			net = p.AppendTo(net)
		}
		b = fields(b, "network", id.Policy, id.Grade)
		b = binary.AppendUvarint(b, uint64(len(net)))
		b = append(b, net...)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// network is the /24 or /64 of a, IPv4-mapped addresses as IPv4 and zones
// dropped; the zero Prefix when a is not valid.
func network(a netip.Addr) netip.Prefix {
	a = a.Unmap().WithZone("")
	bits := 64
	if a.Is4() {
		bits = 24
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return netip.Prefix{}
	}
	return p
}

// fields appends each field to b preceded by its length.
func fields(b []byte, f ...string) []byte {
	for _, s := range f {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}
