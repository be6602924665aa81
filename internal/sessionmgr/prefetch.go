package sessionmgr

import (
	"context"
	"net/http"
	"net/netip"

	"github.com/agentready/agentready/session"
)

// prefetcher is a session.Store that can send a session's lookup along
// with the rate-limit store's call: redisstore's, when the limit store is
// on the same client (redisstore/prefetch.go says how, and why the
// outcome is that of the two calls made in turn). get answers as Get.
type prefetcher interface {
	Prefetch(ctx context.Context, h session.Hash) (context.Context, func() (*session.Session, error))
}

// Pending is a lookup of a request's session that Prefetch started,
// before the caller's identity is known; Lookup finishes it.
type Pending struct {
	err error // the token's: no header, or not one of ours
	get func() (*session.Session, error)
}

// Prefetch starts the lookup of the session r's X-Agent-Session names and
// returns the context the rate-limit store is to be called with: when the
// session store can (redisstore's, on the limit store's client), the
// lookup goes to Redis in the same round trip as the limits. Otherwise
// ctx is r's and the lookup is made by Pending.Lookup. Either way
// Pending.Lookup answers as Lookup would have when called then.
func (m *Manager) Prefetch(r *http.Request) (context.Context, *Pending) {
	ctx := r.Context()
	h, err := tokenHash(r)
	if err != nil {
		return ctx, &Pending{err: err}
	}
	if pf, ok := m.store.(prefetcher); ok {
		ctx, get := pf.Prefetch(ctx, h)
		return ctx, &Pending{get: get}
	}
	return ctx, &Pending{get: func() (*session.Session, error) { return m.store.Get(ctx, h) }}
}

// Lookup is Manager.Lookup for the request Prefetch started from, once its
// identity is known: the same session and errors.
func (p *Pending) Lookup(agent string, client netip.Prefix) (*session.Session, error) {
	if p.err != nil {
		return nil, p.err
	}
	s, err := p.get()
	return owned(s, err, agent, client)
}
