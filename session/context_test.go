package session_test

import (
	"context"
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
	ctx = context.WithValue(ctx, "agentready session", "impostor") //nolint:staticcheck // the point of the test
	if got, ok := session.FromContext(ctx); !ok || got != s {
		t.Errorf("FromContext = %v, %v", got, ok)
	}
}
