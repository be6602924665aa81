package agentready

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/problem"
)

// Gateway is what a server of the declaration's gateways is given: the
// MCP capabilities agentready answers itself (config.Capability.Gateway),
// whose tools each call a capability of the site (docs/gateway.md). The
// module github.com/agentready/agentready/mcpgateway is such a server:
//
//	m, err := agentready.New(site, agentready.WithGateway(mcpgateway.Serve))
type Gateway struct {
	// Site is the declaration New or Reload was given.
	Site config.Site
	// Call serves the request a tool builds for the capability it calls,
	// made with a context derived from the gateway request's: it is
	// decided as the same client's direct call of that capability would
	// be (the path rules, the grant, the auth, the capability's own
	// limit, the session and the audit trail) and handed to the handler
	// Handler wraps, or refused, as a direct call is.
	Call http.Handler
	// Documents serves the documents agentready publishes, to a GET of
	// their path.
	Documents http.Handler
}

// WithGateway answers the endpoint of each gateway capability of the
// declaration with the handler serve returns for it, by capability ID;
// serve is called by New and by every Reload. Without it a declaration
// with a gateway is refused.
func WithGateway(serve func(Gateway) (map[string]http.Handler, error)) Option {
	return func(st *settings) error {
		if serve == nil {
			return errors.New("agentready: WithGateway(nil)")
		}
		st.gateway = serve
		return nil
	}
}

// gateways are the handlers of a declaration's gateways, by endpoint
// path; nil for a declaration without one.
type gateways map[string]http.Handler

// newGateways has the gateway server build the handlers of site's
// gateways, which call through c's enforcer.
func newGateways(site *config.Site, st *settings, c *compiled) (gateways, error) {
	var ids []string
	for i := range site.Capabilities {
		if site.Capabilities[i].Gateway {
			ids = append(ids, site.Capabilities[i].ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if st.gateway == nil {
		return nil, fmt.Errorf("agentready: capabilities %q are gateways, which agentready answers as MCP servers: give New agentready.WithGateway(mcpgateway.Serve), of the module github.com/agentready/agentready/mcpgateway", ids)
	}
	call := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		app, _ := r.Context().Value(appKey{}).(http.Handler)
		if app == nil {
			_ = problem.Write(w, problem.Problem{Status: http.StatusInternalServerError, Detail: "a gateway call made outside a gateway request"})
			return
		}
		c.enf.Call(w, r, app)
	})
	hs, err := st.gateway(Gateway{Site: *site, Call: call, Documents: c.docs.Wrap(http.NotFoundHandler())})
	if err != nil {
		return nil, fmt.Errorf("agentready: gateway: %w", err)
	}
	g := gateways{}
	for _, id := range ids {
		h := hs[id]
		if h == nil {
			return nil, fmt.Errorf("agentready: gateway: no handler for capability %q", id)
		}
		ci, _ := c.policy.CapabilityIndex(id)
		g[c.policy.Capabilities[ci].Path] = h
	}
	return g, nil
}

// appKey is the context key of the handler a gateway's calls go to.
type appKey struct{}

// wrap routes a request to a gateway's endpoint to its handler, with app
// in its context for the calls it makes; every other request goes to app.
// The path is the one the enforcer decided on: its canonical form.
func (g gateways) wrap(app http.Handler) http.Handler {
	if g == nil {
		return app
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := g[r.URL.Path]
		if h == nil {
			app.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), appKey{}, app)))
	})
}
