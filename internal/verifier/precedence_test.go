package verifier

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/verify"
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
		t.Run(c.name, func(t *testing.T) {
			v, at, final := decide(c.as)
			if v != c.v || at != c.at || final != c.final {
				t.Errorf("decide = %v, %d, %v; want %v, %d, %v", v, at, final, c.v, c.at, c.final)
			}
			if err := unavailable(c.as); (err != nil) != (c.v == unknown) {
				t.Errorf("unavailable = %v", err)
			}
		})
	}
}

// TestNewReportsEveryProblem: New reports every source it cannot bind and
// what the bound ones lack, joined, not the first alone.
func TestNewReportsEveryProblem(t *testing.T) {
	agents := []config.AgentPolicy{
		{Name: "A", Verify: config.Verification{Required: true, IPRanges: []string{"ftp://ranges.example/a.json"}}},
		{Name: "B", Verify: config.Verification{Required: true, ReverseDNS: []string{"localhost"}, SignatureAgents: []string{"https://b.example"}}},
		{Name: "C", Verify: config.Verification{Required: true, Methods: []string{config.VerifyIPRange}, SignatureAgents: []string{"https://c.example"}}},
	}
	_, err := newForAgents(agents, verify.Options{Logger: discardLogger()})
	if err == nil {
		t.Fatal("New accepted sources it cannot use")
	}
	for _, want := range []string{"Agents[0] (A).Verify.IPRanges", "Agents[1] (B).Verify.ReverseDNS", "Agents[2] (C).Verify: the policy is verified-only, but no source proves",
		"Options.Authorities names no host"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}
