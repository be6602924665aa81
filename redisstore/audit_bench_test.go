package redisstore_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/agentready/agentready/internal/testing/auditdata"
)

// BenchmarkAuditBeginComplete is audit's BenchmarkBeginComplete on a real Redis:
// two round trips, one script call each.
func BenchmarkAuditBeginComplete(b *testing.B) {
	ctx := context.Background()
	c := startRedis(b)
	s := newAuditStore(b, c, "bench:"+strconv.Itoa(b.N)+":")
	e := auditdata.Event(0)
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

// BenchmarkAuditAppend appends to a real Redis: one round trip, one
// script call.
func BenchmarkAuditAppend(b *testing.B) {
	ctx := context.Background()
	c := startRedis(b)
	s := newAuditStore(b, c, "bench:"+strconv.Itoa(b.N)+":")
	e := auditdata.Event(0)
	b.ReportAllocs()
	for i := range b.N {
		if err := s.Append(ctx, "sess-"+strconv.Itoa(i>>10), e); err != nil {
			b.Fatal(err)
		}
	}
}
