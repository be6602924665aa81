package mcpsession_test

import (
	"net/netip"
	"testing"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/mcpsession"
)

func TestOwner(t *testing.T) {
	addr := netip.MustParseAddr
	user := mcpsession.Identity{Subject: "alice", Issuer: "https://as.example", Policy: "ClaudeBot", Grade: enforce.GradeClaimed, Client: addr("192.0.2.10")}
	proven := mcpsession.Identity{Policy: "GPTBot", Grade: enforce.GradeProven, Operator: "https://chatgpt.com", Method: "signature", Client: addr("192.0.2.10")}
	anon := mcpsession.Identity{Policy: "*", Grade: enforce.GradeAnonymous, Client: addr("192.0.2.10")}
	claimed := mcpsession.Identity{Policy: "GPTBot", Grade: enforce.GradeClaimed, Client: addr("192.0.2.10")}
	v6 := mcpsession.Identity{Policy: "*", Grade: enforce.GradeAnonymous, Client: addr("2001:db8:1:2::10")}
	with := func(id mcpsession.Identity, f func(*mcpsession.Identity)) mcpsession.Identity {
		f(&id)
		return id
	}
	tests := []struct {
		name string
		a, b mcpsession.Identity
		same bool
	}{
		// A verified subject is the owner, wherever and however it comes.
		{"subject from another network", user, with(user, func(i *mcpsession.Identity) { i.Client = addr("198.51.100.7") }), true},
		{"subject under another agent", user, with(user, func(i *mcpsession.Identity) { i.Policy, i.Grade = "*", enforce.GradeAnonymous }), true},
		{"another subject", user, with(user, func(i *mcpsession.Identity) { i.Subject = "bob" }), false},
		{"subject of another issuer", user, with(user, func(i *mcpsession.Identity) { i.Issuer = "https://evil.example" }), false},
		{"subject is not its policy", user, with(user, func(i *mcpsession.Identity) { i.Subject, i.Issuer = "", "" }), false},
		// A proven agent: its policy and proof, not its address.
		{"proven from another address", proven, with(proven, func(i *mcpsession.Identity) { i.Client = addr("203.0.113.1") }), true},
		{"proven by another operator", proven, with(proven, func(i *mcpsession.Identity) { i.Operator = "https://other.example" }), false},
		{"proven another way", proven, with(proven, func(i *mcpsession.Identity) { i.Method = "ip-range" }), false},
		{"proven under another policy", proven, with(proven, func(i *mcpsession.Identity) { i.Policy = "ClaudeBot" }), false},
		{"the same name unproven", proven, claimed, false},
		// Nothing proven: the network counts.
		{"anonymous in the same /24", anon, with(anon, func(i *mcpsession.Identity) { i.Client = addr("192.0.2.250") }), true},
		{"anonymous in another /24", anon, with(anon, func(i *mcpsession.Identity) { i.Client = addr("192.0.3.10") }), false},
		{"anonymous IPv4-mapped", anon, with(anon, func(i *mcpsession.Identity) { i.Client = addr("::ffff:192.0.2.99") }), true},
		{"anonymous under another policy", anon, with(anon, func(i *mcpsession.Identity) { i.Policy = "GPTBot" }), false},
		{"claimed from another /24", claimed, with(claimed, func(i *mcpsession.Identity) { i.Client = addr("198.51.100.10") }), false},
		{"claimed with a stray method", claimed, with(claimed, func(i *mcpsession.Identity) { i.Method, i.Operator = "none", "x" }), true},
		{"claimed, then anonymous", claimed, with(claimed, func(i *mcpsession.Identity) { i.Grade = enforce.GradeAnonymous }), false},
		{"IPv6 in the same /64", v6, with(v6, func(i *mcpsession.Identity) { i.Client = addr("2001:db8:1:2:ffff::1%eth0") }), true},
		{"IPv6 in another /64", v6, with(v6, func(i *mcpsession.Identity) { i.Client = addr("2001:db8:1:3::10") }), false},
		{"no address", with(anon, func(i *mcpsession.Identity) { i.Client = netip.Addr{} }), anon, false},
		// Fields are length-prefixed: moving bytes between them changes the key.
		{"no concatenation", mcpsession.Identity{Policy: "ab", Grade: "c"}, mcpsession.Identity{Policy: "a", Grade: "bc"}, false},
		{"no tag confusion", mcpsession.Identity{Subject: "x"}, mcpsession.Identity{Policy: "x"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := mcpsession.Owner(tc.a), mcpsession.Owner(tc.b)
			if (a == b) != tc.same {
				t.Fatalf("Owner(%+v) = %s\nOwner(%+v) = %s\nsame = %v, want %v", tc.a, a, tc.b, b, a == b, tc.same)
			}
		})
	}
	if k := mcpsession.Owner(user); len(k) != 64 || k != mcpsession.Owner(user) {
		t.Fatalf("Owner = %q: want a stable 64-byte hex digest", k)
	}
}

func TestValidID(t *testing.T) {
	for _, id := range []string{"a", "7DGGQ5ZEXAMPLE", "1868a90c-0000-4000-8000-000000000000", "eyJhbGciOiJIUzI1NiJ9.e30.sig"} {
		if !mcpsession.ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
	for _, id := range []string{"", " ", "a b", "a\x00", "\x7f", "é"} {
		if mcpsession.ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
}
