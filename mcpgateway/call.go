package mcpgateway

import (
	"cmp"
	"context"
	"errors"
	"net/http"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/gatewaydecl"
	"github.com/agentready/agentready/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tool is one tool of a gateway: its declaration (what tools/list shows
// and how a call becomes the called capability's request) and where the
// call goes.
type tool struct {
	decl   *gatewaydecl.Tool
	g      *agentready.Gateway
	called *config.Capability
}

// handle answers a tools/call: the arguments checked against the tool's
// input schema, always, then the called capability's request, made for
// the gateway request's client and decided by agentready as that
// client's direct call, then its answer as the tool's result. Arguments
// not as declared, and a refusal, are error results (MCP 2025-11-25
// Tools, "Error Handling": tool execution errors, which a model can read
// and correct), and the handler of the called capability does not run.
func (t *tool) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	outer, _ := ctx.Value(gatewayRequest{}).(*http.Request)
	if outer == nil {
		return nil, errors.New("mcpgateway: a tool called outside a gateway request")
	}
	r, err := t.decl.NewRequest(ctx, req.Params.Arguments)
	var faults gatewaydecl.Faults
	switch {
	case errors.As(err, &faults):
		// Named as the direct call's refusal is (enforce_params' 400),
		// though nothing was called.
		return errorResult("the call was refused 400 Bad Request: the arguments are not as the tool's input schema says: " + faults.Error()), nil
	case err != nil:
		return errorResult(err.Error()), nil
	}
	carry(r, outer, t.called)
	a := newAnswer()
	t.g.Call.ServeHTTP(a, r)
	return a.result(t.decl), nil
}

// carry gives r what identifies the gateway request's client: its
// address, host and TLS state, its User-Agent and the forwarding fields
// trusted proxies write (read only from those proxies), and the
// credentials the called capability reads: Authorization, its api-key
// header, a v0.1.0 session. Nothing else of the gateway request goes on:
// the call is the tool's arguments.
func carry(r, outer *http.Request, called *config.Capability) {
	r.RemoteAddr, r.Host, r.TLS = outer.RemoteAddr, outer.Host, outer.TLS
	r.Proto, r.ProtoMajor, r.ProtoMinor = outer.Proto, outer.ProtoMajor, outer.ProtoMinor
	// As a server reads a request: the target in origin form.
	r.URL.Scheme, r.URL.Host = "", ""
	r.RequestURI = r.URL.RequestURI()
	if r.Body == nil {
		r.Body = http.NoBody // a server's request always has one
	}
	for _, name := range []string{"User-Agent", "Authorization", "X-Forwarded-For", "Forwarded", "X-Real-Ip",
		session.HeaderSession, apiKeyHeader(called)} {
		if v, ok := outer.Header[http.CanonicalHeaderKey(name)]; ok && name != "" {
			r.Header[http.CanonicalHeaderKey(name)] = v
		}
	}
}

// apiKeyHeader is the header called's api-key travels in, "" without one.
func apiKeyHeader(called *config.Capability) string {
	if called == nil || called.Auth.Type != config.AuthAPIKey {
		return ""
	}
	return cmp.Or(called.Auth.Header, "X-API-Key")
}
