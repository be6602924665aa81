package gatewaydecl

import (
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/publish/discovery"
	"github.com/agentready/agentready/internal/resolve"
)

// Resource is a document of the site as an MCP resource: resources/list
// gives its URI, Name, Description and MIMEType; resources/read gets its
// bytes with a GET of Path on the site.
type Resource struct {
	// URI is the document's https URL: every agent may fetch it from the
	// web itself, which is what MCP's https scheme says (Resources,
	// "Common URI Schemes").
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"` // the media type, without parameters
	// Path is where the site serves it; ContentType the Content-Type it is
	// served with ("" where the site's handler decides).
	Path        string `json:"path"`
	ContentType string `json:"contentType,omitempty"`
	// Document: agentready's document handler serves Path (publish), and
	// a GET without Accept gets ContentType. Otherwise (an OpenAPI
	// document) the site's own handler does, and the GET goes through
	// agentready, decided as the MCP client's own request would be: a path
	// the site keeps from agents stays kept.
	Document bool  `json:"document"`
	Size     int64 `json:"size,omitempty"` // the body's length when known, else 0
}

// Resources are the resources of a site that serves docs, the documents
// publish.Render (publish.Document is discovery.Doc), and the middleware's
// robots.txt, made for it: exactly what agentready serves, since Render
// skips each document kind Documents.Disabled names. Each document is listed once, at its first
// path (agents.txt is also at /agents.txt; an MCP server card's legacy
// alias is left out). Then the OpenAPI document each capability names on
// the site's own origin, once per URL; one on another origin is not
// listed, since the server would have to fetch the web for it. There is no
// llms.txt: agentready publishes none.
func Resources(s *config.Site, docs []discovery.Doc) []Resource {
	origin := resolve.Origin(s)
	var out []Resource
	for _, d := range docs {
		if len(d.Paths) == 0 || strings.HasSuffix(d.Name, " (legacy path)") {
			continue
		}
		mt, _, err := mime.ParseMediaType(d.ContentType)
		if err != nil {
			mt = d.ContentType
		}
		out = append(out, Resource{
			URI: origin + d.Paths[0], Name: d.Name, Description: describe(d.Name),
			MIMEType: mt, Path: d.Paths[0], ContentType: d.ContentType,
			Document: true, Size: int64(len(d.Body)),
		})
	}
	seen := map[string]bool{}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		u, err := url.Parse(c.OpenAPI)
		if c.OpenAPI == "" || err != nil || seen[c.OpenAPI] || !strings.EqualFold(endpoint.Origin(c.OpenAPI), origin) {
			continue
		}
		seen[c.OpenAPI] = true
		out = append(out, Resource{
			URI: c.OpenAPI, Name: "OpenAPI " + c.ID,
			Description: "The OpenAPI document of the capability " + c.ID + ".",
			MIMEType:    openAPIType(u.Path), Path: endpoint.Path(c.OpenAPI),
		})
	}
	return out
}

// openAPIType is the media type an OpenAPI document's name implies:
// application/json for .json, application/yaml (RFC 9512) for .yaml and
// .yml, "" (unknown until served) otherwise.
func openAPIType(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".json":
		return "application/json"
	case ".yaml", ".yml":
		return "application/yaml"
	}
	return ""
}

// describe says what a document of publish is, by its Name.
func describe(name string) string {
	for _, d := range []struct{ prefix, text string }{
		{"agents.txt", "What agents may do on this site: the agents.txt declaration."},
		{"agents.json", "The site's declaration as JSON (agents.json)."},
		{"agents.md", "The site's guide for agents (agents.md)."},
		{"agent.json", "The site's actions, entities and errors (Agent Web Protocol agent.json)."},
		{"robots.txt", "The site's robots.txt."},
		{"descriptor ", "An agent:// descriptor of the site's agent."},
		{"MCP server card ", "An MCP server card of the site."},
		{"A2A agent card", "The site's A2A agent card."},
		{"ai-catalog.json", "The site's AI Catalog of its agents and MCP servers."},
		{"protected resource metadata ", "The OAuth protected resource metadata (RFC 9728) of an MCP endpoint."},
	} {
		if strings.HasPrefix(name, d.prefix) {
			return d.text
		}
	}
	return ""
}
