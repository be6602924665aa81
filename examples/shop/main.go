// Command shop is the Acme Ceramics shop of the agents.txt v0.1.0 format
// (internal/testing/fixtures.AcmeCeramics), published in the v0.1.0 dialect and
// enforced by agentready, with sessions, a cart and a signed audit trail.
// The declaration and the shop's handlers (internal/testing/shop) are shared with
// the library's tests, so the demo serves exactly what the golden files
// and the session tests check; a site copying this program writes its own
// config.Site in their place.
//
//	go run ./examples/shop -addr 127.0.0.1:8082
//
// An agent creates a session (POST /.well-known/agents/api/session), calls
// the cart capabilities with its X-Agent-Session token, checks out (the
// answer is a human-handoff URL, and ends the session) and fetches the
// signed audit artifact at /.well-known/agents/api/audit/<session_id>,
// which `go run ./cmd/agentready verify-audit URL` verifies. docs/sessions.md,
// "A session with curl", shows a whole curl session.
//
// The audit key is generated at start unless -key-file names a file holding
// its seed (created on first use), so that artifacts stay verifiable with
// the same published key across restarts. With -redis, sessions and audit
// logs live in Redis: a restarted shop (with the same -key-file) still
// serves them.
//
// The declaration's URLs stay the fixture's (https://acmeceramics.example.com):
// routing looks at paths only, so the shop serves them on any address.
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/shop"
	"github.com/agentready/agentready/redisstore"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8082", "address to listen on (host:port)")
	keyFile := flag.String("key-file", "", "file holding the audit key's seed (base64); created when missing. Default: a new key per run")
	redisAddr := flag.String("redis", "", "keep sessions and audit logs in the Redis at this host:port")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	key, err := loadKey(*keyFile)
	if err != nil {
		log.Fatal(err)
	}
	site := fixtures.AcmeCeramics()
	site.Audit.PublicKey = "" // the fixture's is a test key: New publishes ours
	opts := []agentready.Option{
		agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}),
		agentready.WithAudit(key, nil),
		agentready.WithLogger(logger),
		// The shop declares no Allow/Disallow rules: every automated
		// client may use its capabilities and nothing else (draft-car 2.6).
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents),
	}
	if *redisAddr != "" {
		client := redis.NewClient(&redis.Options{Addr: *redisAddr, DialTimeout: time.Second,
			ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond, ContextTimeoutEnabled: true})
		defer func() { _ = client.Close() }()
		ss, err := redisstore.NewSessionStore(client)
		if err != nil {
			log.Fatal(err)
		}
		as, err := redisstore.NewAuditStore(client)
		if err != nil {
			log.Fatal(err)
		}
		opts = append(opts, agentready.WithSessions(ss), agentready.WithAudit(key, as))
	}
	m, err := agentready.New(site, opts...)
	if err != nil {
		log.Fatal(err)
	}
	// Seal the audit trail of sessions that expire while no one creates
	// sessions.
	go func() { _ = m.Run(context.Background()) }()

	fmt.Printf("Acme Ceramics on http://%s\naudit public key: %s\n", *addr, base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey)))
	srv := &http.Server{Addr: *addr, Handler: m.Handler(shop.New(site.URL)), ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// loadKey reads the key's seed from path, or creates the file with a new
// one; an empty path means a new key that lives as long as the process.
func loadKey(path string) (ed25519.PrivateKey, error) {
	seed := make([]byte, ed25519.SeedSize)
	if path == "" {
		_, _ = rand.Read(seed)
		return ed25519.NewKeyFromSeed(seed), nil
	}
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		seed, err = base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("%s: not the base64 of a %d-byte Ed25519 seed", path, ed25519.SeedSize)
		}
	case errors.Is(err, fs.ErrNotExist):
		_, _ = rand.Read(seed)
		if err := os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(seed)+"\n"), 0o600); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
