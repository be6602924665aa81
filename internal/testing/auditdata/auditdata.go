// Package auditdata is the fixed data of the audit.Store conformance
// suite (audit/audittest), shared with the stores' own tests and
// benchmarks: one signing key, numbered events and a session's metadata.
package auditdata

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/agentready/agentready/audit"
)

// Key is the fixed signing key the suite (audittest.Run) seals with (seed 0, 1, …, 31).
var Key = func() ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	return ed25519.NewKeyFromSeed(seed)
}()

// Event returns a valid event numbered i, with params that include a
// value DefaultRedactor hides and an integer (recorded as a float64).
func Event(i int) audit.Event {
	return audit.Event{
		EventID:    fmt.Sprintf("evt-%d", i),
		Timestamp:  audit.FormatTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)),
		Capability: "cart.add",
		Method:     "POST",
		Params: map[string]any{
			"item_id":  fmt.Sprintf("item-%d", i),
			"quantity": i,
			"payment":  map[string]any{"card_number": "4111111111111111", "cvv": 123, "brand": "visa"},
		},
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: "capability:cart.add"},
		ResponseStatus: 201,
		PrevHash:       "ignored: the store links the chain",
	}
}

// Meta returns the metadata the suite seals session id with.
func Meta(id string) audit.Meta {
	return audit.Meta{
		SessionID: id,
		Site:      "https://acmeceramics.example.com",
		CreatedAt: "2025-06-01T11:59:00.000Z",
		EndedAt:   "2025-06-01T12:30:00.000Z",
		Agent:     audit.Agent{Name: "ShopBot", Version: "1.2", Purpose: "conformance"},
	}
}
