package session_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentready/agentready/session"
)

func TestContext(t *testing.T) {
	if _, ok := session.FromContext(context.Background()); ok {
		t.Error("empty context has a session")
	}
	if _, ok := session.FromContext(session.NewContext(context.Background(), nil)); ok {
		t.Error("a nil session was found")
	}
	s := &session.Session{ID: "abc"}
	ctx := session.NewContext(context.Background(), s)
	// A string key of the same text must not reach it.
	//lint:ignore SA1029 a string key is the point of the test
	ctx = context.WithValue(ctx, "agentready session", "impostor")
	if got, ok := session.FromContext(ctx); !ok || got != s {
		t.Errorf("FromContext = %v, %v", got, ok)
	}
}

// TestHeaderSessionCanonical: the middleware reads the header map under
// HeaderSession directly, which finds the header only if the name is in
// canonical form.
func TestHeaderSessionCanonical(t *testing.T) {
	if got := http.CanonicalHeaderKey(session.HeaderSession); got != session.HeaderSession {
		t.Fatalf("HeaderSession %q is not canonical (%q)", session.HeaderSession, got)
	}
}
