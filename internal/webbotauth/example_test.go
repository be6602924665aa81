package webbotauth_test

import (
	"context"
	"errors"
	"log"
	"net/http"

	"github.com/agentready/agentready/internal/webbotauth"
)

// A site trusts two operators' key directories, keeps them fresh in the
// background, and tells verified, invalid and unverifiable requests apart.
func Example() {
	dirs, err := webbotauth.NewDirectories([]string{
		"https://agent.example",
		"https://crawler.example",
	}, webbotauth.DirectoryOptions{})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go dirs.Run(ctx)

	v := &webbotauth.Verifier{Keys: dirs.Key, Replays: webbotauth.NewMemoryReplays(100_000)}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The site's own name, not r.Host: the client chose r.Host.
		sig, err := v.Verify(r.Context(), r, "www.site.example")
		switch {
		case err == nil:
			log.Printf("verified: %s key %s", sig.Agent, sig.KeyID)
		case errors.Is(err, webbotauth.ErrNoSignature), errors.Is(err, webbotauth.ErrUnavailable):
			// Unsigned, or cannot tell: the request keeps whatever
			// identity other signals give it.
		default:
			http.Error(w, "invalid Web Bot Auth signature", http.StatusForbidden)
			return
		}
	})
	_ = handler
}
