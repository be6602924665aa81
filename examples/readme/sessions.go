package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"log"
	"net/http"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/session"
)

// docs/sessions.md, "Declaring sessions and the audit trail".
func sessions(ctx context.Context, priv ed25519.PrivateKey, addr string, app http.Handler) error {
	site := acmeCeramics()    // your config.Site, with Session and Audit
	site.Audit.PublicKey = "" // New publishes the key's public half
	m, err := agentready.New(site,
		agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}),
		// priv (ed25519.PrivateKey) is required with Audit.Enabled; a nil store
		// keeps the audit logs in memory. Durable: a redisstore.NewAuditStore
		// here, and agentready.WithSessions(redisstore.NewSessionStore(...)).
		agentready.WithAudit(priv, nil),
	)
	if err != nil {
		log.Fatal(err)
	}
	go m.Run(ctx) // seal sessions that expire unattended
	http.ListenAndServe(addr, m.Handler(app))
	return nil
}

// docs/sessions.md, "Human handoff".
func checkout(w http.ResponseWriter, r *http.Request) {
	s, ok := session.FromContext(r.Context())
	if !ok { // unreachable behind the middleware: it answered 401
		http.Error(w, `{"ok":false,"error":"no session"}`, http.StatusUnauthorized)
		return
	}
	url := startPayment(s.ID) // your payment page for this session's cart
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "data": map[string]any{
		"handoff_url": url,
		"expires_at":  time.Now().Add(15 * time.Minute).UTC().Format(time.RFC3339),
		"message":     "Open this link to review the cart and pay.",
	}})
}
