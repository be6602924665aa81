package mcpsession_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/mcpsession"
)

// BenchmarkCheck is the request-side cost on the memory store: the owner
// key, then Check of a session bound to it, among 10000 bindings.
func BenchmarkCheck(b *testing.B) {
	ctx := context.Background()
	m := mcpsession.NewMemory(mcpsession.MemoryConfig{})
	s, err := mcpsession.New(m, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	id := mcpsession.Identity{Policy: "*", Grade: enforce.GradeAnonymous, Client: netip.MustParseAddr("192.0.2.7")}
	owner := mcpsession.Owner(id)
	for i := range 10000 {
		if err := m.Bind(ctx, fmt.Sprintf("7DGGQ5ZL2XUJ4EXAMPLE%06d", i), owner, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	h := http.Header{mcpsession.Header: {"7DGGQ5ZL2XUJ4EXAMPLE004242"}}
	b.ReportAllocs()
	for b.Loop() {
		p, err := s.Check(ctx, h, mcpsession.Owner(id))
		if err != nil || p.Verdict != mcpsession.Owned {
			b.Fatal(p, err)
		}
	}
}
