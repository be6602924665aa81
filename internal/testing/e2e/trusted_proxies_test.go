package e2e_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestNewRefusesBroadProxies: New refuses trusted proxies whose union
// covers more than a /8 of globally routable IPv4 addresses or a
// globally routable IPv6 prefix shorter than /16, naming
// Clients.TrustAllProxies, and takes them with it; private, loopback,
// shared and link-local networks do not count.
func TestNewRefusesBroadProxies(t *testing.T) {
	for _, list := range [][]string{{"0.0.0.0/0"}, {"0.0.0.0/1", "128.0.0.0/1"}, {"::/0"}, {"2000::/3"}, {"11.0.0.0/8", "12.0.0.0/8"}} {
		_, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithClients(agentready.Clients{TrustedProxies: list}))
		if err == nil || !strings.Contains(err.Error(), "Clients.TrustedProxies: the proxies cover") || !strings.Contains(err.Error(), "Clients.TrustAllProxies") {
			t.Errorf("%v: %v", list, err)
		}
		if _, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithClients(agentready.Clients{TrustedProxies: list, TrustAllProxies: true})); err != nil {
			t.Errorf("%v with TrustAllProxies: %v", list, err)
		}
	}
	private := []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "::1", "fc00::/7", "fe80::/10", "11.0.0.0/8", "2001:db8::/32"}
	if _, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithClients(agentready.Clients{TrustedProxies: private})); err != nil {
		t.Errorf("%v: %v", private, err)
	}
}
