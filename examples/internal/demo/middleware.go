package demo

import (
	"log/slog"

	"github.com/agentready/agentready"
)

// Middleware builds the demo's agentready Middleware for app: the
// declaration of Site, decisions logged to log, tokens checked against
// app's, and, when redisAddr is set, limits shared through Redis (see
// Redis). close releases what it opened.
func Middleware(app *App, redisAddr string, log *slog.Logger) (m *agentready.Middleware, close func() error, err error) {
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
	m, err = agentready.New(Site(), opts...)
	if err != nil {
		_ = close()
		return nil, nil, err
	}
	return m, close, nil
}
