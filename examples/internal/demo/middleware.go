package demo

import (
	"context"
	"log/slog"
	"net"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/verify"
)

// Middleware builds the demo's agentready Middleware for app: the
// declaration of Site, decisions logged to log, tokens checked against
// app's, and, when redisAddr is set, limits shared through Redis (see
// Redis). With trustSignatureAgents, the "claude" policy is verified-only:
// its grants go only to requests signed (Web Bot Auth) by a key of one of
// those key directories, which are loaded now and refreshed until ctx is
// done; plain HTTP is allowed for loopback directories only, and addr (the
// demo's listen address) is the authority signatures must be made for.
// close releases what it opened.
func Middleware(ctx context.Context, app *App, redisAddr string, trustSignatureAgents []string, addr string, log *slog.Logger) (m *agentready.Middleware, close func() error, err error) {
	opts := app.Options(log)
	close = func() error { return nil }
	if redisAddr != "" {
		store, closeRedis, err := Redis(redisAddr, log)
		if err != nil {
			return nil, nil, err
		}
		close = closeRedis
		opts = append(opts, agentready.WithStore(store))
	}
	site := Site()
	opts = append(opts, agentready.WithDocuments(agentready.Documents{RobotsTxt: true}))
	if len(trustSignatureAgents) > 0 {
		for i := range site.Agents {
			if site.Agents[i].Name == "claude" {
				site.Agents[i].Verify = config.Verification{Required: true,
					Methods: []string{config.VerifySignature}, SignatureAgents: trustSignatureAgents}
			}
		}
		opts = append(opts, agentready.WithVerification(verify.Options{AllowHTTPLoopback: true, Authorities: authorities(addr)}))
	}
	m, err = agentready.New(site, opts...)
	if err != nil {
		_ = close()
		return nil, nil, err
	}
	// Run loads the trusted key directories and keeps them fresh; until
	// one is loaded, claude's claims are served under "*".
	go func() { _ = m.Run(ctx) }()
	return m, close, nil
}

// authorities are the host:port a client reaches the demo at: addr as
// given, or, for a port alone (":8080"), that port on the loopback names.
func authorities(addr string) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		return []string{addr}
	}
	return []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}
}
