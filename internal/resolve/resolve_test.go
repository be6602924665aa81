package resolve

import (
	"math"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
)

// TestDefaults: an empty field resolves to the default its config comment
// documents, a set one to itself.
func TestDefaults(t *testing.T) {
	c := &config.Capability{}
	s := &config.Site{URL: "https://shop.example/base/"}
	for _, tt := range []struct{ name, got, want string }{
		{"Method", Method(c), "GET"},
		{"Method set", Method(&config.Capability{Method: "post"}), "POST"},
		{"Protocol", string(Protocol(c)), "REST"},
		{"AuthType", string(AuthType(config.Auth{})), "none"},
		{"Header", Header(config.Auth{}), "X-API-Key"},
		{"Header set", Header(config.Auth{Header: "X-Key"}), "X-Key"},
		{"ParamIn", string(ParamIn(config.Param{})), "query"},
		{"ParamType", string(ParamType(config.Param{})), "string"},
		{"Host", Host(s), "shop.example"},
		{"Origin", Origin(s), "https://shop.example"},
		{"Version", Version(s), "1.0.0"},
		{"SessionEndpoint", SessionEndpoint(s), "/.well-known/agents/api/session"},
		{"SessionEndpointURL", SessionEndpointURL(s), "https://shop.example/.well-known/agents/api/session"},
		{"AuditEndpoint", AuditEndpoint(s), "https://shop.example/.well-known/agents/api/audit/:session_id"},
		{"RelativeEndpoint", RelativeEndpoint(s, "https://shop.example/api?q=1"), "/api?q=1"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if AuthRequired(config.Auth{}) || !AuthRequired(config.Auth{Type: config.AuthHMAC}) {
		t.Error("AuthRequired: none is not required, hmac is")
	}
	if got := SessionTTL(s); got != 30*time.Minute {
		t.Errorf("SessionTTL = %v, want 30m", got)
	}
	if got := BodyLimit(c); got != 1<<20 {
		t.Errorf("BodyLimit = %d, want 1 MiB", got)
	}
}

// TestVersionAsPublished: the version the cards publish is the derived
// agent:// agent's, which config resolves for its own validation.
func TestVersionAsPublished(t *testing.T) {
	for _, v := range []string{"", "2.1.0"} {
		s := &config.Site{URL: "https://shop.example", Version: v, Capabilities: []config.Capability{{ID: "x"}}}
		if got, want := Version(s), s.PublishedAgents()[0].Version; got != want {
			t.Errorf("Version %q: resolve says %q, the derived agent %q", v, got, want)
		}
	}
}

// TestRequestsPerMinute: rounded up, 0 for no or an invalid rate, and
// saturated rather than overflowing.
func TestRequestsPerMinute(t *testing.T) {
	for _, tt := range []struct {
		r    config.Rate
		want int
	}{
		{config.Rate{}, 0},
		{config.PerMinute(-1), 0},
		{config.Rate{Requests: 5, Window: "fortnight"}, 0},
		{config.PerSecond(2), 120},
		{config.PerSecond(math.MaxInt), math.MaxInt},
		{config.PerMinute(60), 60},
		{config.PerHour(61), 2},
		{config.PerDay(1), 1},
		{config.PerDay(1441), 2},
	} {
		if got := RequestsPerMinute(tt.r); got != tt.want {
			t.Errorf("RequestsPerMinute(%+v) = %d, want %d", tt.r, got, tt.want)
		}
	}
}

// TestAccepts: no Methods accepts any method; a list only its own.
func TestAccepts(t *testing.T) {
	any := &config.Verification{}
	ip := &config.Verification{Methods: []string{config.VerifyIPRange}}
	if !Accepts(any, config.VerifySignature) || !Accepts(ip, config.VerifyIPRange) || Accepts(ip, config.VerifySignature) {
		t.Error("Accepts: want any method without Methods, only the listed ones with")
	}
}

// TestNeedsSession: a session is needed when any capability requires one.
func TestNeedsSession(t *testing.T) {
	s := &config.Site{Capabilities: []config.Capability{{ID: "a"}, {ID: "b"}}}
	if NeedsSession(s) {
		t.Error("no capability requires a session")
	}
	s.Capabilities[1].RequiresSession = true
	if !NeedsSession(s) {
		t.Error("b requires a session")
	}
}
