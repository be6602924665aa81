package report

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/reportview"
)

// TestBounded: 100,000 distinct agent names, paths, rules and reasons,
// over several slots: every slot's tables keep at most 4*Rows entries (map
// entries and rows, their capacity included), a snapshot at most Rows rows
// and "other", and every count is still there.
func TestBounded(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	r := New(Options{Rows: 5, Now: func() time.Time { return now }})
	const n = 100_000
	for i := range n {
		s := strconv.Itoa(i)
		r.Observe(enforce.Decision{Outcome: enforce.DenyPath, Path: "/p/" + s, Rule: "Disallow: /" + s, Agent: "a" + s, Grade: "g" + s, Limit: "l" + s, Capability: "c" + s, Tool: "t" + s,
			Class: enforce.Class{Kind: enforce.KindDeclared, Name: "agent-" + s, Purpose: "p" + s}})
		if i%7 == 0 {
			// The same name in ever new variants: bounded by the same limit.
			r.Observe(enforce.Decision{Outcome: enforce.Allow, Agent: s, Class: enforce.Class{Name: "same"}})
		}
		if i%10_000 == 0 {
			now = now.Add(time.Minute)
		}
	}
	for i := range r.slots {
		sl := &r.slots[i]
		for name, tb := range map[string]interface{ size() (int, int, int) }{"agents": &sl.agents, "rules": &sl.rules, "paths": &sl.paths, "reasons": &sl.reasons, "refusals": &sl.refusals, "capabilities": &sl.capabilities, "tools": &sl.tools} {
			if m, l, c := tb.size(); m > r.limit || l > r.limit || c > r.limit {
				t.Errorf("slot %d %s: %d map entries, %d rows (capacity %d), limit %d", i, name, m, l, c, r.limit)
			}
		}
	}
	s := r.Snapshot()
	if want := int64(n + (n+6)/7); s.Total.Requests != want {
		t.Errorf("Total %d, want %d", s.Total.Requests, want)
	}
	for name, rows := range map[string][]reportview.Row{"agents": s.Agents, "rules": s.Rules, "paths": s.Paths, "capabilities": s.Capabilities} {
		if len(rows) != 6 || !rows[5].Other {
			t.Errorf("%s: %d rows, want 5 and other", name, len(rows))
		}
		var sum int64
		for _, w := range rows {
			sum += w.Requests
		}
		if want := s.Total.Requests; name != "agents" { // the rest count the refusals alone (the allowed name no capability)
			want = s.Total.Denied
			if sum != want {
				t.Errorf("%s sum %d, want %d", name, sum, want)
			}
		} else if sum != want {
			t.Errorf("%s sum %d, want %d", name, sum, want)
		}
	}
}

func (t *table[V]) size() (int, int, int) { return len(t.idx), len(t.ents), cap(t.ents) }

// TestClip: a name over 256 bytes is cut at a character boundary, marked,
// and copied (it holds no more than it shows).
func TestClip(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2 bytes each: a cut may fall inside one
	for _, s := range []string{long, "x" + long, strings.Repeat("a", 300)} {
		c := clip(s)
		if len(c) > maxKey || !utf8.ValidString(c) || !strings.HasSuffix(c, "…") || !strings.HasPrefix(s, strings.TrimSuffix(c, "…")) {
			t.Errorf("clip(%.10q...) = %q (%d bytes)", s, c, len(c))
		}
	}
	if s := strings.Repeat("a", maxKey); clip(s) != s {
		t.Error("clip cut a name of maxKey bytes")
	}
}
