package session_test

import (
	"testing"
	"time"

	"github.com/agentready/agentready/session"
	"github.com/agentready/agentready/session/sessiontest"
)

func TestMemoryStoreConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		return session.NewMemoryStore(session.WithClock(now))
	})
}
