package enforcer

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/ratelimit"
)

func TestMaxRetryAfter(t *testing.T) {
	res := []ratelimit.Result{{Allowed: true}, {RetryAfter: 3 * time.Second}, {RetryAfter: 7 * time.Second}}
	if got := maxRetryAfter(res); got != 7*time.Second {
		t.Errorf("maxRetryAfter = %v", got)
	}
}

// ctxStore fails as a store does for a request whose context is done.
type ctxStore struct{ ratelimit.Store }

func (ctxStore) Allow(ctx context.Context, _ []ratelimit.Limit, _ []ratelimit.Result) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestCanceledRequestLogsNoOutage: a client that goes away while its limits
// are counted gets the store's 503 (nobody reads it), and no error line:
// a client must not write "rate-limit store failed" into the log at will.
func TestCanceledRequestLogsNoOutage(t *testing.T) {
	p, err := policy.Compile(ptr(fixtures.OutdoorSupply()))
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	e, err := New(Config{Policy: p, Store: ctxStore{}, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequest(http.MethodGet, "https://outdoorsupply.example/api/search?q=x", nil).WithContext(ctx)
	r.Header.Set("User-Agent", "claude/1.0")
	w := httptest.NewRecorder()
	e.Wrap(http.NotFoundHandler()).ServeHTTP(w, r)
	if w.Code != http.StatusServiceUnavailable || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("%d, logs %q", w.Code, logs.String())
	}
}

func ptr[T any](v T) *T { return &v }
