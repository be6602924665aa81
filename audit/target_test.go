package audit_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net/url"
	"reflect"
	"testing"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/internal/auditparams"
)

// TestTargetDistinguishesActions: events that differ only in a path
// param, a header param or one byte of a query value that is not UTF-8
// differ in the sealed artifact, which verifies.
func TestTargetDistinguishesActions(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	targets := []auditparams.Target{
		{Path: "/orders/1001", PathParams: []auditparams.PathParam{{Name: "id", Segment: 2}}},
		{Path: "/orders/2002", PathParams: []auditparams.PathParam{{Name: "id", Segment: 2}}},
		{Path: "/refunds", Headers: []auditparams.Header{{Name: "X-Order-Id", Value: "1001"}}},
		{Path: "/refunds", Headers: []auditparams.Header{{Name: "X-Order-Id", Value: "2002"}}},
		{Path: "/search", Query: "q=mug%FF"},
		{Path: "/search", Query: "q=mug%FE"},
	}
	for i := range targets {
		e := audit.Event{EventID: string(rune('a' + i)), Timestamp: "2026-01-01T00:00:00.000Z", Capability: "c", Method: "POST",
			Query: []audit.Param{{Name: "q", Value: "mug\xff"}}, Target: &targets[i],
			PolicyResult: audit.PolicyResult{Decision: audit.Allow}, ResponseStatus: 200}
		if err := ms.Append(ctx, "s", e); err != nil {
			t.Fatal(err)
		}
	}
	a, err := audit.SealSession(ctx, ms, key, audit.Meta{SessionID: "s", Site: "https://shop.example",
		CreatedAt: "2026-01-01T00:00:00.000Z", EndedAt: "2026-01-01T00:00:01.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := audit.CanonicalArtifact(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := audit.VerifyJSON(raw, key.Public().(ed25519.PublicKey)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(a.Events); i += 2 {
		x, _ := json.Marshal(a.Events[i].Params)
		y, _ := json.Marshal(a.Events[i+1].Params)
		if bytes.Equal(x, y) {
			t.Errorf("events %d and %d record the same params %s", i, i+1, x)
		}
	}
}

// FuzzTargetHeaderExact: a header value is recorded so that its bytes come
// back, whatever they are: two values are recorded alike only when equal.
func FuzzTargetHeaderExact(f *testing.F) {
	f.Add("mug\xff", "mug\xfe")
	f.Add("50%", "50%25")
	f.Add("caf\xc3\xa9", "caf%C3%A9")
	f.Fuzz(func(t *testing.T, a, b string) {
		rec := func(v string) []byte {
			e := audit.Event{EventID: "e", Timestamp: "2026-01-01T00:00:00.000Z", Capability: "c", Method: "GET",
				Target:       &auditparams.Target{Path: "/", Headers: []auditparams.Header{{Name: "X-Id", Value: v}}},
				PolicyResult: audit.PolicyResult{Decision: audit.Allow}, ResponseStatus: 200}
			out, err := audit.CanonicalEvent(e)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		ra, rb := rec(a), rec(b)
		if (a == b) != bytes.Equal(ra, rb) {
			t.Fatalf("%q and %q: recorded %s and %s", a, b, ra, rb)
		}
		// The recorded value decodes back to the bytes.
		var ev struct {
			Params map[string]struct {
				Headers map[string]any `json:"headers"`
			} `json:"params"`
		}
		if err := json.Unmarshal(ra, &ev); err != nil {
			t.Fatal(err)
		}
		got := ev.Params[auditparams.TargetMember].Headers["X-Id"]
		if m, ok := got.(map[string]any); ok {
			s, _ := m["pct"].(string)
			u, err := url.PathUnescape(s)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			got = u
		}
		if got != a {
			t.Fatalf("%q recorded as %s, decoded %q", a, ra, got)
		}
	})
}

// TestTargetReserved: a member of the target's name beside a target is
// refused, not overwritten.
func TestTargetReserved(t *testing.T) {
	for _, e := range []audit.Event{
		{Params: map[string]any{auditparams.TargetMember: "x"}},
		{Query: []audit.Param{{Name: auditparams.TargetMember, Value: "x"}}},
	} {
		e.Target = &auditparams.Target{Path: "/"}
		if _, err := audit.CanonicalEvent(e); err == nil {
			t.Errorf("%+v: no error", e)
		}
	}
}

// TestTargetRedaction: the Redactor reaches the target's path: a path
// param it redacts is written "{name}" in the path, and a ";name=value"
// path parameter whose name it redacts (a servlet session id) has its
// value redacted in the path and in path_params, as a query pair has; the
// protocol's own names stay. A name given two segments records the first
// and redacts both.
func TestTargetRedaction(t *testing.T) {
	for _, tt := range []struct {
		name   string
		target auditparams.Target
		want   map[string]any
	}{
		{"path param", auditparams.Target{Path: "/t/tok1/x", PathParams: []auditparams.PathParam{{Name: "token", Segment: 2}}},
			map[string]any{"path": "/t/{token}/x", "path_params": map[string]any{"token": audit.Redacted}}},
		{"session in a path parameter", auditparams.Target{Path: "/cart;jsessionid=A1B2;v=1/x;SID=9;session_id=s-1", Query: "jsessionid=A1&q=1"},
			map[string]any{"path": "/cart;jsessionid=[REDACTED];v=1/x;SID=[REDACTED];session_id=s-1", "query": "jsessionid=[REDACTED]&q=1"}},
		{"escaped name", auditparams.Target{Path: "/cart;%6Asessionid=A1;=x;novalue;"},
			map[string]any{"path": "/cart;%6Asessionid=[REDACTED];=x;novalue;"}},
		{"in a param's segment", auditparams.Target{Path: "/orders/42;jsessionid=A1", PathParams: []auditparams.PathParam{{Name: "id", Segment: 2}}},
			map[string]any{"path": "/orders/42;jsessionid=[REDACTED]", "path_params": map[string]any{"id": "42;jsessionid=[REDACTED]"}}},
		{"a name given two segments", auditparams.Target{Path: "/a/k1/b/k2", PathParams: []auditparams.PathParam{{Name: "id", Segment: 2}, {Name: "id", Segment: 4}}},
			map[string]any{"path": "/a/k1/b/k2", "path_params": map[string]any{"id": "k1"}}},
		{"a sensitive name given two segments", auditparams.Target{Path: "/a/k1/b/k2", PathParams: []auditparams.PathParam{{Name: "pin", Segment: 2}, {Name: "pin", Segment: 4}}},
			map[string]any{"path": "/a/{pin}/b/{pin}", "path_params": map[string]any{"pin": audit.Redacted}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := audit.Event{EventID: "e", Timestamp: "2026-01-01T00:00:00.000Z", Capability: "c", Method: "GET",
				Target: &tt.target, PolicyResult: audit.PolicyResult{Decision: audit.Allow}, ResponseStatus: 200}
			p, err := audit.Prepare(e, audit.DefaultRedactor)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Params[auditparams.TargetMember]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("recorded %#v, want %#v", got, tt.want)
			}
		})
	}
}
