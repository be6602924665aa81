package verify_test

import (
	"encoding/json"
	"testing"

	"github.com/agentready/agentready/verify"
)

// A Method logs and marshals by name, and only a proven claim is Verified.
func TestIdentity(t *testing.T) {
	for m, want := range map[verify.Method]string{
		verify.None: "none", verify.Signature: "signature", verify.IPRange: "ip-range",
		verify.ReverseDNS: "reverse-dns", verify.Method(9): "unknown",
	} {
		if got := m.String(); got != want {
			t.Errorf("Method(%d).String() = %q, want %q", uint8(m), got, want)
		}
		b, err := json.Marshal(verify.Identity{Method: m})
		if err != nil || string(b) != `{"Claimed":"","Method":"`+want+`","Source":"","KeyID":"","Agent":"","Purpose":"","Reason":""}` {
			t.Errorf("Method(%d) marshals as %s, %v", uint8(m), b, err)
		}
		if got := (verify.Identity{Claimed: "claude", Method: m}).Verified(); got != (m != verify.None) {
			t.Errorf("Identity with Method %s: Verified() = %v", m, got)
		}
	}
}
