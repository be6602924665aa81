package demo

import (
	"net/netip"
	"testing"
)

// TestDefaultAddrLoopback: a demo started without -addr is reachable from
// this machine alone.
func TestDefaultAddrLoopback(t *testing.T) {
	ap, err := netip.ParseAddrPort(DefaultAddr)
	if err != nil || !ap.Addr().IsLoopback() {
		t.Errorf("DefaultAddr %q is not a loopback address and port (%v)", DefaultAddr, err)
	}
}
