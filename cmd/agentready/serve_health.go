package main

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

// readyPingTimeout bounds the PING /readyz sends to Redis: below the 1 s
// a Kubernetes probe waits by default, so a slow Redis reads as down, not
// as a probe that timed out.
const readyPingTimeout = 500 * time.Millisecond

// health answers /healthz and /readyz (docs/operations.md, "Health and
// readiness"), on the metrics listener or -health-addr's, never on the
// public one: agents have no business probing the replica.
type health struct {
	// loaded is set once the declaration is loaded and serving.
	loaded atomic.Bool
	// redis is -redis's store, nil without; policy its failure policy.
	redis  *redisStore
	policy string
}

// readiness is /readyz's body.
type readiness struct {
	Declaration string `json:"declaration"` // loaded or not loaded
	Redis       string `json:"redis"`       // up, down or none
	Store       string `json:"store"`       // memory, or redis and its failure policy
}

// mount adds /healthz and /readyz to mux.
func (h *health) mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", h.alive)
	mux.HandleFunc("GET /readyz", h.ready)
}

// alive answers 200 while the process serves: a liveness probe restarts
// a replica only when it stops answering at all, never for Redis.
func (h *health) alive(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("ok\n"))
}

// ready answers 200 once the declaration is loaded, 503 before. A Redis
// that does not answer fails it only under fail-closed, where every
// rate-limited request is refused 503 anyway: under fallback-memory and
// fail-open the replica still serves, and taking it out of the load
// balancer for Redis would turn a Redis outage into a site outage.
func (h *health) ready(w http.ResponseWriter, r *http.Request) {
	rd := readiness{Declaration: "not loaded", Redis: "none", Store: "memory"}
	code := http.StatusServiceUnavailable
	if h.loaded.Load() {
		rd.Declaration, code = "loaded", http.StatusOK
	}
	if h.redis != nil {
		rd.Store = "redis " + h.policy
		rd.Redis = "up"
		ctx, cancel := context.WithTimeout(r.Context(), readyPingTimeout)
		err := h.redis.ping(ctx)
		cancel()
		if err != nil {
			rd.Redis = "down"
			if h.policy == ratelimit.FailClosed {
				code = http.StatusServiceUnavailable
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(rd)
}
