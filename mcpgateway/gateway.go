// Package mcpgateway serves the gateways of an agentready declaration: the
// MCP capabilities agentready answers itself (config.Capability.Gateway),
// whose tools each call a REST capability of the site (config.Tool.Calls),
// with the official Go SDK (github.com/modelcontextprotocol/go-sdk). It is
// a module of its own, so that a site without a gateway builds none of the
// SDK:
//
//	m, err := agentready.New(site, agentready.WithGateway(mcpgateway.Serve))
//
// agentready decides a request to the gateway as it decides any request to
// an MCP capability (the tool's grant, its limit and the capability's); a
// tools/call is then validated against the tool's input schema, made a
// request to the called capability's endpoint from its arguments, and
// handed to agentready.Gateway.Call, which decides it as the same client's
// direct call (docs/gateway.md).
package mcpgateway

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentready/agentready"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve builds the handler of each gateway capability of g.Site, by ID,
// for agentready.WithGateway: an MCP server over streamable HTTP, without
// sessions (each request stands alone, as MCP 2026-07-28 has it; clients
// of earlier versions initialize as they do and get no Mcp-Session-Id),
// answering with JSON rather than an event stream.
func Serve(g agentready.Gateway) (map[string]http.Handler, error) {
	hs := map[string]http.Handler{}
	for i := range g.Site.Capabilities {
		c := &g.Site.Capabilities[i]
		if !c.Gateway {
			continue
		}
		s, err := newServer(&g, c)
		if err != nil {
			return nil, fmt.Errorf("capability %q: %w", c.ID, err)
		}
		sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true,
				// agentready has decided the request's host (its host
				// stage) and origin; the SDK's loopback check would refuse
				// a site served on 127.0.0.1 under its own name.
				DisableLocalhostProtection: true})
		hs[c.ID] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), gatewayRequest{}, r)))
		})
	}
	return hs, nil
}

// gatewayRequest is the context key of the request to the gateway, whose
// client a tool's call is made for.
type gatewayRequest struct{}
