package enforce_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/ratelimit"
)

// TestEnumsLogByName: slog's JSON handler writes enums by name.
func TestEnumsLogByName(t *testing.T) {
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, nil)).Info("x", "outcome", enforce.DenyPath, "class", policy.Unknown, "policy", ratelimit.FailClosed)
	for _, want := range []string{`"outcome":"deny-path"`, `"class":"unknown"`, `"policy":"` + ratelimit.FailClosed + `"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s lacks %s", b.String(), want)
		}
	}
}
