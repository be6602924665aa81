package enforcer

import (
	"testing"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

func TestMaxRetryAfter(t *testing.T) {
	res := []ratelimit.Result{{Allowed: true}, {RetryAfter: 3 * time.Second}, {RetryAfter: 7 * time.Second}}
	if got := maxRetryAfter(res); got != 7*time.Second {
		t.Errorf("maxRetryAfter = %v", got)
	}
}
