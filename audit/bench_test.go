package audit_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/internal/testing/auditdata"
)

// benchEvent is a typical session-bound call: a few params, one of them
// redacted.
func benchEvent() audit.Event {
	return audit.Event{
		EventID:        "01JX7Q3ZK8W5N4R2T6Y9B0C1D2",
		Timestamp:      "2025-06-01T12:00:05.250Z",
		Capability:     "cart.add",
		Method:         "POST",
		Params:         map[string]any{"item_id": "mug-42", "quantity": 2, "gift_note": "Happy birthday!", "token": "csrf-abc"},
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: "capability:cart.add"},
		ResponseStatus: 201,
	}
}

// BenchmarkAppend is the audit trail's part of a session-bound request:
// one event appended to an in-memory session log.
func BenchmarkAppend(b *testing.B) {
	benchRecord(b, func(ctx context.Context, s audit.Store, id string, e audit.Event) error {
		return s.Append(ctx, id, e)
	})
}

// benchRecord records one event per iteration with record, in the steady
// state: 4096 sessions of up to 16 events are live, then they are gone
// (sealed, expired) and new ones begin.
func benchRecord(b *testing.B, record func(ctx context.Context, s audit.Store, id string, e audit.Event) error) {
	ctx := context.Background()
	e := benchEvent()
	var s audit.Store
	b.ReportAllocs()
	for i := range b.N {
		if i&(1<<16-1) == 0 {
			b.StopTimer()
			var err error
			if s, err = audit.NewMemoryStore(audit.MemoryConfig{}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if err := record(ctx, s, sessionIDs[i&(len(sessionIDs)-1)], e); err != nil {
			b.Fatal(err)
		}
	}
}

// sessionIDs are the benchmarks' session ids, made once.
var sessionIDs = func() []string {
	ids := make([]string, 4096)
	for i := range ids {
		ids[i] = "01JX7Q3ZK8W5N4R2T6Y9" + strconv.Itoa(100000+i)
	}
	return ids
}()

// BenchmarkAppendParallel: many sessions appended to at once (the logs
// grow with b.N; they are pointer-free, so the collector barely cares).
func BenchmarkAppendParallel(b *testing.B) {
	ctx := context.Background()
	s, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		e := benchEvent()
		for pb.Next() {
			i := next.Add(1)
			if err := s.Append(ctx, sessionIDs[i&int64(len(sessionIDs)-1)], e); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkChainAppend(b *testing.B) {
	e := benchEvent()
	b.ReportAllocs()
	var c audit.Chain
	for i := range b.N {
		if i&1023 == 0 {
			c = audit.Chain{}
		}
		if _, err := c.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify100 verifies a sealed log of 100 events.
func BenchmarkVerify100(b *testing.B) {
	var c audit.Chain
	for range 100 {
		if _, err := c.Append(benchEvent()); err != nil {
			b.Fatal(err)
		}
	}
	a, err := c.Seal(auditdata.Key, auditdata.Meta("bench"))
	if err != nil {
		b.Fatal(err)
	}
	doc, err := json.Marshal(a)
	if err != nil {
		b.Fatal(err)
	}
	key := auditdata.Key.Public().(ed25519.PublicKey)
	b.Run("struct", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if err := audit.Verify(a, key); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("JSON", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := audit.VerifyJSON(doc, key); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBeginComplete is what the middleware does for an allowed
// request, in memory: Begin before the handler, Complete with its status.
func BenchmarkBeginComplete(b *testing.B) {
	benchRecord(b, func(ctx context.Context, s audit.Store, id string, e audit.Event) error {
		seq, err := s.Begin(ctx, id, e)
		if err == nil {
			err = s.Complete(ctx, id, seq, 200, nil)
		}
		return err
	})
}
