package redisstore_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/redisstore"
)

// BenchmarkRedisBeginComplete is BenchmarkBeginComplete on a real Redis:
// two round trips, one script call each.
func BenchmarkAuditBeginComplete(b *testing.B) {
	ctx := context.Background()
	c := auditRedis(b)
	s, err := redisstore.NewAuditStore(c, redisstore.WithKeyPrefix("bench:"+strconv.Itoa(b.N)+":"))
	if err != nil {
		b.Fatal(err)
	}
	e := benchEvent()
	b.ReportAllocs()
	for i := range b.N {
		id := "sess-" + strconv.Itoa(i>>10)
		seq, err := s.Begin(ctx, id, e)
		if err == nil {
			err = s.Complete(ctx, id, seq, 200, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedisAppend appends to a real Redis: one round trip, one
// script call.
func BenchmarkAuditAppend(b *testing.B) {
	ctx := context.Background()
	c := auditRedis(b)
	s, err := redisstore.NewAuditStore(c, redisstore.WithKeyPrefix("bench:"+strconv.Itoa(b.N)+":"))
	if err != nil {
		b.Fatal(err)
	}
	e := benchEvent()
	b.ReportAllocs()
	for i := range b.N {
		if err := s.Append(ctx, "sess-"+strconv.Itoa(i>>10), e); err != nil {
			b.Fatal(err)
		}
	}
}

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
