package redistest

import (
	"strings"
	"testing"
	"time"
)

// The server's lifecycle as the outage tests use it: up, hung, back, down,
// restarted on the same address.
func TestServerLifecycle(t *testing.T) {
	s := StartLocal(t)
	up := func(step string) {
		t.Helper()
		if err := ping(s.Addr, time.Second); err != nil {
			t.Fatalf("%s: PING: %v", step, err)
		}
	}
	up("started")
	s.Pause(t)
	if err := ping(s.Addr, 200*time.Millisecond); err == nil {
		t.Error("paused: PING answered")
	}
	s.Resume(t)
	up("resumed")
	addr := s.Addr
	s.Stop(t)
	if err := ping(s.Addr, 200*time.Millisecond); err == nil {
		t.Error("stopped: PING answered")
	}
	s.Restart(t)
	if s.Addr != addr {
		t.Errorf("restarted on %s, was %s", s.Addr, addr)
	}
	up("restarted")
}

func TestPrefix(t *testing.T) {
	a, b := Prefix(t), Prefix(t)
	if a == b {
		t.Errorf("two prefixes alike: %q", a)
	}
	if strings.ContainsAny(a, "{} ") || !strings.HasSuffix(a, ":") {
		t.Errorf("prefix %q: want no braces or spaces, ending in ':'", a)
	}
}
