package enforcer_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/enforcer"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// An Enforcer never takes an hmac capability's Signature on presence alone:
// New refuses one without an Authenticator, whoever calls it.
func TestNewRefusesUnverifiedHMAC(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Capabilities[0].Auth = config.Auth{Type: config.AuthHMAC}
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enforcer.New(enforcer.Config{Policy: p}); err == nil || !strings.Contains(err.Error(), "hmac") {
		t.Errorf("New without an Authenticator: %v, want an error naming hmac", err)
	}
	accept := func(*http.Request, *config.Capability, string) error { return nil }
	if _, err := enforcer.New(enforcer.Config{Policy: p, Authenticate: accept}); err != nil {
		t.Errorf("New with an Authenticator: %v", err)
	}
}

// New reports every problem of its configuration at once, not the first.
func TestNewReportsEveryProblem(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Capabilities[0].Auth = config.Auth{Type: config.AuthHMAC}
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	_, err = enforcer.New(enforcer.Config{Policy: p, Hosts: []string{"a b"}, ProbeNets: []string{"10.0.0.0/99"}})
	for _, want := range []string{"hmac", `"a b"`, `probe network "10.0.0.0/99"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New: %v, want it to name %s", err, want)
		}
	}
}
