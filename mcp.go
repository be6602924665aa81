package agentready

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/oauthrs"
)

// What a site's MCP capabilities need beyond the enforcer
// (docs/mcp.md): the bindings of their sessions to who opened them, and
// the verifiers of the JWT access tokens of capabilities that declare
// them (any oauth2 or bearer-token capability may).

// tokenVerifiers are the JWT verifiers of site's capabilities, by index
// (docs/mcp.md, "Authorization"): one for each that declares Auth.JWT or an
// Audience, of its AuthorizationServer, for its Audience (default its
// Endpoint, RFC 8707). One a Reload's predecessor holds for the same
// issuer and audience is kept, with the keys it has fetched.
func tokenVerifiers(site *config.Site, st *settings) ([]*oauthrs.Verifier, error) {
	var out []*oauthrs.Verifier
	var errs []error
	for i := range site.Capabilities {
		a := &site.Capabilities[i].Auth
		if !a.JWT && a.Audience == "" {
			continue
		}
		if out == nil {
			out = make([]*oauthrs.Verifier, len(site.Capabilities))
		}
		aud := cmp.Or(a.Audience, site.Capabilities[i].Endpoint)
		for _, v := range st.tokens {
			if v != nil && v.Issuer() == a.AuthorizationServer && v.Audience() == aud {
				out[i] = v
			}
		}
		if out[i] != nil {
			continue
		}
		v, err := oauthrs.NewVerifier(a.AuthorizationServer, aud, oauthrs.Options{Now: st.clock, Logger: st.log(),
			AllowHTTPLoopback: st.verifyOpts.AllowHTTPLoopback, Client: st.verifyOpts.Client})
		if err != nil {
			errs = append(errs, fmt.Errorf("capabilities[%d].auth: %w", i, err))
			continue
		}
		out[i] = v
	}
	return out, errors.Join(errs...)
}

// mcpSessions is where the sessions of the site's MCP capabilities are
// bound to who opened them (docs/mcp.md): the bindings a Reload keeps, the
// session store's when it keeps them (redisstore's, across replicas), else
// memory's; nil for a site without an MCP capability.
func mcpSessions(site *config.Site, st *settings) (*mcpsession.Sessions, error) {
	if st.mcpSessions != nil {
		return st.mcpSessions, nil
	}
	if !slices.ContainsFunc(site.Capabilities, func(c config.Capability) bool { return c.Protocol == config.ProtocolMCP }) {
		return nil, nil
	}
	store, ok := st.sessionStore.(mcpsession.Provider)
	if ok {
		return mcpsession.New(store.MCPSessions(), 0, st.clock)
	}
	return mcpsession.New(mcpsession.NewMemory(mcpsession.MemoryConfig{Now: st.clock}), 0, st.clock)
}
