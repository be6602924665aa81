package audit_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentready/agentready/audit"
)

// A session's log recorded in a store, sealed with the site's key, and
// verified by a third party with the key the site publishes.
func Example() {
	seed := make([]byte, ed25519.SeedSize) // the site's key: keep it secret
	for i := range seed {
		seed[i] = byte(i)
	}
	key := ed25519.NewKeyFromSeed(seed)

	ctx := context.Background()
	store, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		panic(err)
	}
	for _, e := range []audit.Event{{
		EventID: "evt-1", Timestamp: "2025-06-01T12:00:00.000Z", Capability: "search", Method: "GET",
		Params:         map[string]any{"q": "blue mug", "limit": 10},
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: "capability:search"},
		ResponseStatus: 200,
	}, {
		EventID: "evt-2", Timestamp: "2025-06-01T12:00:05.250Z", Capability: "cart.add", Method: "POST",
		Params:         map[string]any{"item_id": "mug-42", "quantity": 2, "card_number": "4111111111111111"},
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: "capability:cart.add"},
		ResponseStatus: 201,
	}} {
		if err := store.Append(ctx, "sess-1", e); err != nil {
			panic(err)
		}
	}
	a, err := audit.SealSession(ctx, store, key, audit.Meta{
		SessionID: "sess-1",
		Site:      "https://acmeceramics.example.com",
		CreatedAt: "2025-06-01T11:59:00.000Z",
		EndedAt:   "2025-06-01T12:01:00.000Z",
		Agent:     audit.Agent{Name: "ShopBot", Version: "1.2", Purpose: "buy a mug"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("card_number:", a.Events[1].Params["card_number"])
	fmt.Println("prev_hash:  ", a.Events[1].PrevHash)
	fmt.Println("root_hash:  ", a.RootHash)
	fmt.Println("public_key: ", a.PublicKey)

	published := key.Public().(ed25519.PublicKey) // agents.json audit.public_key
	fmt.Println("verify:", audit.Verify(a, published))
	a.Events[0].Params["q"] = "red mug"
	fmt.Println("tampered:", audit.Verify(a, published))
	// Output:
	// card_number: [REDACTED]
	// prev_hash:   12d7f6d5066645188c83f6a6a28c78fbec270bb40a6236ed76129438844c1ef6
	// root_hash:   d7875306a124456edf56df542d925b49221fce5ac70a9c088db20e78557d9902
	// public_key:  A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=
	// verify: <nil>
	// tampered: audit: hash chain broken at event 1: prev_hash is "12d7f6d5066645188c83f6a6a28c78fbec270bb40a6236ed76129438844c1ef6", want 6234f03d46738e957523bcb0b2ab08b7f12f617dbe6bc7b43005a503cccc673b, the hash of event 0
}

// The middleware's side: events go to a Store as requests are served,
// and SealSession signs and stores the artifact when the session ends.
func ExampleSealSession() {
	ctx := context.Background()
	store, err := audit.NewMemoryStore(audit.MemoryConfig{}) // redisstore.NewAuditStore(client) to survive restarts
	if err != nil {
		panic(err)
	}
	event := audit.Event{
		EventID:        "evt-1", // rand.Text() in production
		Timestamp:      "2025-06-01T12:00:00.000Z",
		Capability:     "login",
		Method:         "POST",
		Params:         map[string]any{"user": "ann", "password": "hunter2"},
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: "capability:login"},
		ResponseStatus: 200,
	}
	for range 2 {
		if err := store.Append(ctx, "sess-1", event); err != nil {
			panic(err) // the middleware fails the request closed instead
		}
	}
	_, state, _ := store.Artifact(ctx, "sess-1")
	fmt.Println("before the end:", state) // the audit endpoint answers 425

	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	if _, err := audit.SealSession(ctx, store, key, audit.Meta{
		SessionID: "sess-1", Site: "https://acmeceramics.example.com",
		CreatedAt: "2025-06-01T11:59:00.000Z", EndedAt: "2025-06-01T12:01:00.000Z",
	}); err != nil {
		panic(err)
	}
	a, state, _ := store.Artifact(ctx, "sess-1")
	fmt.Println("after:", state, len(a.Events), "events;", "password:", a.Events[0].Params["password"])
	fmt.Println("append after the end:", store.Append(ctx, "sess-1", event))
	// Output:
	// before the end: active
	// after: sealed 2 events; password: [REDACTED]
	// append after the end: audit: session already sealed: session "sess-1"
}

// A third party verifies an artifact downloaded from the audit endpoint.
func ExampleVerifyJSON() {
	b, err := os.ReadFile(filepath.Join("testdata", "artifact.json"))
	if err != nil {
		panic(err)
	}
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	published := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	a, err := audit.VerifyJSON(b, published)
	fmt.Println(len(a.Events), "events,", err)
	other := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	_, err = audit.VerifyJSON(b, other)
	fmt.Println(errors.Is(err, audit.ErrSignature))
	// Output:
	// 3 events, <nil>
	// true
}

func ExampleDefaultRedactor() {
	e, _ := audit.Prepare(audit.Event{
		EventID: "evt-1", Timestamp: "2025-06-01T12:00:00.000Z", Capability: "search", Method: "GET",
		Params: map[string]any{
			"q":       "mugs",
			"apiKey":  "k-123",
			"payment": map[string]any{"card_number": "4111111111111111", "brand": "visa"},
		},
		PolicyResult: audit.PolicyResult{Decision: audit.Allow}, ResponseStatus: 200,
	}, audit.DefaultRedactor)
	fmt.Println(e.Params)
	// Output:
	// map[apiKey:[REDACTED] payment:map[brand:visa card_number:[REDACTED]] q:mugs]
}
