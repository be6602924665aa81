package audit_test

import (
	"crypto/ed25519"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/audit"
)

func TestChainAppend(t *testing.T) {
	var c audit.Chain
	prev := ""
	for i, e := range workedEvents() {
		e.PrevHash = "caller's value is ignored"
		got, err := c.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		if got.PrevHash != prev {
			t.Fatalf("event %d prev_hash = %q, want %q", i, got.PrevHash, prev)
		}
		prev, _ = audit.EventHash(got)
		got.Params["mutated"] = true // the recorded copy is the chain's own
	}
	if c.Len() != 3 {
		t.Fatalf("Len = %d", c.Len())
	}
	ev := c.Events()
	if ev[1].Params["card_number"] != audit.Redacted || ev[1].Params["quantity"] != 2.0 {
		t.Fatalf("recorded params = %#v", ev[1].Params)
	}
	if _, ok := ev[0].Params["mutated"]; ok {
		t.Fatal("Append returned the chain's own map")
	}
	a, err := c.Seal(testKey(), workedMeta())
	if err != nil {
		t.Fatal(err)
	}
	if err := audit.Verify(a, testKey().Public().(ed25519.PublicKey)); err != nil {
		t.Fatal(err)
	}
	// The chain goes on after a seal; a later seal covers more.
	if _, err := c.Append(workedEvents()[0]); err != nil {
		t.Fatal(err)
	}
	b, err := c.Seal(testKey(), workedMeta())
	if err != nil || len(b.Events) != 4 || audit.Verify(b, nil) != nil {
		t.Fatalf("second seal: %v", err)
	}
}

func TestChainRejectsInvalidEvents(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*audit.Event)
	}{
		{"empty event id", func(e *audit.Event) { e.EventID = "" }},
		{"timestamp without milliseconds", func(e *audit.Event) { e.Timestamp = "2025-06-01T12:00:00Z" }},
		{"timestamp with offset", func(e *audit.Event) { e.Timestamp = "2025-06-01T12:00:00.000+01:00" }},
		{"timestamp not a date", func(e *audit.Event) { e.Timestamp = "2025-02-30T12:00:00.000Z" }},
		{"timestamp hour 24", func(e *audit.Event) { e.Timestamp = "2025-06-01T24:00:00.000Z" }},
		{"timestamp letters", func(e *audit.Event) { e.Timestamp = "2025-06-01T12:00:0a.000Z" }},
		{"empty capability", func(e *audit.Event) { e.Capability = "" }},
		{"empty method", func(e *audit.Event) { e.Method = "" }},
		{"decision", func(e *audit.Event) { e.PolicyResult.Decision = "Allow" }},
		{"status 0", func(e *audit.Event) { e.ResponseStatus = 0 }},
		{"status 600", func(e *audit.Event) { e.ResponseStatus = 600 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c audit.Chain
			e := workedEvents()[0]
			tt.mutate(&e)
			if _, err := c.Append(e); !errors.Is(err, audit.ErrInvalidEvent) {
				t.Fatalf("Append: %v, want ErrInvalidEvent", err)
			}
			if c.Len() != 0 {
				t.Fatal("a refused event was recorded")
			}
		})
	}
}

func TestChainConcurrent(t *testing.T) {
	var c audit.Chain
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, e := range workedEvents() {
				if _, err := c.Append(e); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	a, err := c.Seal(testKey(), workedMeta())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Events) != 24 {
		t.Fatalf("%d events", len(a.Events))
	}
}

func TestSignErrors(t *testing.T) {
	events := workedArtifact(t).Events
	tests := []struct {
		name   string
		events []audit.Event
		key    ed25519.PrivateKey
		meta   func(*audit.Meta)
		want   error
	}{
		{"short key", events, testKey()[:32], nil, audit.ErrInvalidKey},
		{"nil key", events, nil, nil, audit.ErrInvalidKey},
		{"no session id", events, testKey(), func(m *audit.Meta) { m.SessionID = "" }, audit.ErrInvalidEvent},
		{"no site", events, testKey(), func(m *audit.Meta) { m.Site = "" }, audit.ErrInvalidEvent},
		{"bad created_at", events, testKey(), func(m *audit.Meta) { m.CreatedAt = "yesterday" }, audit.ErrInvalidEvent},
		{"bad ended_at", events, testKey(), func(m *audit.Meta) { m.EndedAt = "2025-06-01 12:01:00" }, audit.ErrInvalidEvent},
		{"ended before created", events, testKey(), func(m *audit.Meta) { m.EndedAt = "2025-06-01T11:58:59.999Z" }, audit.ErrInvalidEvent},
		{"broken chain", []audit.Event{events[0], events[2]}, testKey(), nil, audit.ErrChainBroken},
		{"unhashable params", []audit.Event{{Params: map[string]any{"c": make(chan int)}}}, testKey(), nil, audit.ErrParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := workedMeta()
			if tt.meta != nil {
				tt.meta(&m)
			}
			if _, err := audit.Sign(tt.events, tt.key, m); !errors.Is(err, tt.want) {
				t.Fatalf("Sign: %v, want %v", err, tt.want)
			}
		})
	}
}

// TestTimestampValidation holds the hand-written check to time.Parse.
func TestTimestampValidation(t *testing.T) {
	base := time.Date(2023, 12, 31, 23, 59, 59, 999e6, time.UTC)
	var c audit.Chain
	for _, ts := range []string{
		"2024-02-29T00:00:00.000Z", "2023-02-29T00:00:00.000Z", "1900-02-29T00:00:00.000Z", "2000-02-29T00:00:00.000Z",
		"2025-04-31T00:00:00.000Z", "2025-04-30T23:59:59.999Z", "2025-00-10T00:00:00.000Z", "2025-13-10T00:00:00.000Z",
		"2025-01-00T00:00:00.000Z", "2025-01-32T00:00:00.000Z", "2025-01-01T24:00:00.000Z", "2025-01-01T00:60:00.000Z",
		"2025-01-01T00:00:60.000Z", "0000-01-01T00:00:00.000Z", audit.FormatTime(base), "2025-01-01t00:00:00.000Z",
	} {
		_, perr := time.Parse(audit.TimeLayout, ts)
		e := workedEvents()[0]
		e.Timestamp = ts
		if _, err := c.Append(e); (err == nil) != (perr == nil) {
			t.Errorf("%s: Append error %v, time.Parse error %v", ts, err, perr)
		}
	}
}

func TestFormatTime(t *testing.T) {
	ts := time.Date(2025, 6, 1, 14, 0, 5, 250_999_999, time.FixedZone("CEST", 2*3600))
	if got := audit.FormatTime(ts); got != "2025-06-01T12:00:05.250Z" {
		t.Fatalf("FormatTime = %s", got)
	}
}

// TestQueryParams: Query params hash as the map allParams makes of them,
// and Sign moves them into Params, so the artifact verifies as JSON.
func TestQueryParams(t *testing.T) {
	e := workedEvents()[0]
	e.Params = map[string]any{"limit": 10}
	e.Query = []audit.Param{{Name: "q", Value: "blue mug"}, {Name: "limit", Value: "5"}, {Name: "q", Value: "red mug"}}
	h, err := audit.EventHash(e)
	if err != nil {
		t.Fatal(err)
	}
	asMap := e
	asMap.Params, asMap.Query = e.AllParams(), nil
	if h2, _ := audit.EventHash(asMap); h2 != h {
		t.Fatalf("hash with Query %s, with its map %s", h, h2)
	}
	if want := (map[string]any{"q": []any{"blue mug", "red mug"}, "limit": 10}); !reflect.DeepEqual(asMap.Params, want) {
		t.Fatalf("AllParams = %#v, want %#v", asMap.Params, want)
	}
	a, err := audit.Sign([]audit.Event{e}, testKey(), workedMeta())
	if err != nil {
		t.Fatal(err)
	}
	if a.Events[0].Query != nil || a.Events[0].Params["limit"] != 10.0 || len(a.Events[0].Params["q"].([]any)) != 2 {
		t.Fatalf("signed event %#v", a.Events[0])
	}
	b, err := audit.CanonicalArtifact(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := audit.VerifyJSON(b, testKey().Public().(ed25519.PublicKey)); err != nil {
		t.Fatalf("VerifyJSON: %v", err)
	}
	var c audit.Chain
	got, err := c.Append(e)
	if err != nil || got.Query != nil || got.Params["limit"] != 10.0 {
		t.Fatalf("Chain.Append = %#v, %v", got, err)
	}
}
