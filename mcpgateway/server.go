package mcpgateway

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/gatewaydecl"
	"github.com/agentready/agentready/internal/publish"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newServer is the MCP server of gateway capability c: its tools, the
// site's flows as prompts, the published documents as resources.
func newServer(g *agentready.Gateway, c *config.Capability) (*mcp.Server, error) {
	decl, err := gatewaydecl.New(&g.Site, c.ID)
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: c.ID, Title: c.Name, Version: version()},
		&mcp.ServerOptions{Instructions: c.Description})
	for _, d := range decl.Tools {
		t := &tool{decl: d, g: g, called: capability(&g.Site, d.Calls)}
		spec := &mcp.Tool{Name: d.Name, Title: d.Title, Description: d.Description,
			InputSchema: d.InputSchema, Annotations: &mcp.ToolAnnotations{Title: d.Annotations.Title,
				ReadOnlyHint: d.Annotations.ReadOnlyHint, DestructiveHint: d.Annotations.DestructiveHint,
				IdempotentHint: d.Annotations.IdempotentHint, OpenWorldHint: d.Annotations.OpenWorldHint}}
		if d.OutputSchema != nil {
			spec.OutputSchema = d.OutputSchema
		}
		if d.Meta != nil {
			spec.Meta = d.Meta
		}
		s.AddTool(spec, t.handle)
	}
	for _, p := range decl.Prompts {
		text := p.Text
		s.AddPrompt(&mcp.Prompt{Name: p.Name, Description: p.Description},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: p.Description,
					Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
			})
	}
	res, err := resources(g)
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		s.AddResource(&mcp.Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType},
			readResource(g, r))
	}
	return s, nil
}

// capability is the capability of s whose ID is id (validated: it is).
func capability(s *config.Site, id string) *config.Capability {
	for i := range s.Capabilities {
		if s.Capabilities[i].ID == id {
			return &s.Capabilities[i]
		}
	}
	return nil
}

// resources are the site's documents that agentready serves, and the
// OpenAPI documents on its origin: each kind is rendered in the site's
// dialect and kept only where g.Documents answers its path, so that the
// list is what the Middleware's options publish.
func resources(g *agentready.Gateway) ([]gatewaydecl.Resource, error) {
	docs, err := publish.Render(&g.Site, publish.Options{Formats: config.Formats{Dialect: g.Site.Dialect}})
	if err != nil {
		return nil, fmt.Errorf("the documents: %w", err)
	}
	var out []gatewaydecl.Resource
	for _, r := range gatewaydecl.Resources(&g.Site, docs) {
		if !r.Document {
			out = append(out, r)
			continue
		}
		rec := httptest.NewRecorder()
		g.Documents.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, r.Path, nil))
		if rec.Code == http.StatusOK {
			out = append(out, r)
		}
	}
	return out, nil
}

// readResource reads r: a document from agentready's handler, an OpenAPI
// document through Call, as the client's own GET of it is decided.
func readResource(g *agentready.Gateway, r gatewaydecl.Resource) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		outer, _ := ctx.Value(gatewayRequest{}).(*http.Request)
		if outer == nil {
			return nil, fmt.Errorf("mcpgateway: a resource read outside a gateway request")
		}
		get, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URI, nil)
		if err != nil {
			return nil, err
		}
		carry(get, outer, nil)
		a := newAnswer()
		if r.Document {
			g.Documents.ServeHTTP(a, get)
		} else {
			g.Call.ServeHTTP(a, get)
		}
		if a.status >= 300 || a.over {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		body, _ := io.ReadAll(&a.body)
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.URI, MIMEType: cmp.Or(r.MIMEType, a.header.Get("Content-Type")), Text: string(body)}}}, nil
	}
}
