package verifier

import (
	"errors"
	"testing"
)

// TestDecide pins the precedence rules (decide's doc comment): the first
// proof or decisive disproof settles the claim; otherwise a source that
// cannot tell makes it unknown, unless it is weak and another source
// answered no; otherwise it is disproven. A source with nothing to say
// (no signature offered) counts for nothing.
func TestDecide(t *testing.T) {
	down := errors.New("down")
	var (
		yes     = answer{verdict: proven}
		no      = answer{verdict: disproven}
		bad     = answer{verdict: disproven, decisive: true, err: errors.New("bad signature")}
		silent  = answer{verdict: unknown}
		cannot  = answer{verdict: unknown, err: down}
		slowDNS = answer{verdict: unknown, err: down, weak: true}
	)
	for _, c := range []struct {
		name  string
		as    []answer
		v     verdict
		at    int
		final bool
	}{
		{"nothing", nil, disproven, -1, false},
		{"a proof", []answer{silent, no, yes}, proven, 2, true},
		{"a bad signature before a proof", []answer{bad, yes}, disproven, 0, true},
		{"a proof before a bad signature", []answer{yes, bad}, proven, 0, true},
		{"a source that cannot tell", []answer{no, cannot}, unknown, -1, false},
		{"slow reverse DNS alone", []answer{silent, slowDNS}, unknown, -1, false},
		{"slow reverse DNS after a no", []answer{no, slowDNS}, disproven, -1, false},
		{"no signature offered", []answer{silent, no}, disproven, -1, false},
		{"only silence", []answer{silent}, disproven, -1, false},
	} {
		v, at, final := decide(c.as)
		if v != c.v || at != c.at || final != c.final {
			t.Errorf("%s: decide = %v, %d, %v; want %v, %d, %v", c.name, v, at, final, c.v, c.at, c.final)
		}
		if err := unavailable(c.as); (err != nil) != (c.v == unknown) {
			t.Errorf("%s: unavailable = %v", c.name, err)
		}
	}
}
