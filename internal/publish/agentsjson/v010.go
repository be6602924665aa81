package agentsjson

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsonenc"
	"github.com/agentready/agentready/internal/resolve"
)

// ProtocolVersion is the v0.1.0 agents.json protocol_version.
const ProtocolVersion = "0.1.0"

// The v0.1.0 types follow the agents-protocol JSON Schema, which sets
// additionalProperties false on every object: nothing beyond these members
// may be rendered.

type v010Doc struct {
	ProtocolVersion string           `json:"protocol_version"`
	Site            v010Site         `json:"site"`
	Capabilities    []v010Capability `json:"capabilities"`
	Session         *v010Session     `json:"session,omitempty"`
	RateLimit       *v010RateLimit   `json:"rate_limit,omitempty"`
	Audit           *v010Audit       `json:"audit,omitempty"`
	DocsURL         string           `json:"docs_url,omitempty"`
}

type v010Site struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	Contact     string `json:"contact,omitempty"`
}

type v010Capability struct {
	Name            string                    `json:"name"`
	Description     string                    `json:"description,omitempty"`
	Endpoint        string                    `json:"endpoint"`
	Method          string                    `json:"method"`
	Params          jsonenc.Object[v010Param] `json:"params,omitempty"`
	RequiresSession bool                      `json:"requires_session,omitempty"`
	HumanHandoff    bool                      `json:"human_handoff,omitempty"`
}

type v010Param struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Default     any    `json:"default,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
}

type v010Session struct {
	Endpoint string `json:"endpoint"`
	TTL      int64  `json:"ttl"`
}

type v010RateLimit struct {
	MaxRequestsPerMinute int `json:"max_requests_per_minute,omitempty"`
	MaxSessions          int `json:"max_sessions,omitempty"`
}

type v010Audit struct {
	Enabled   bool   `json:"enabled"`
	Endpoint  string `json:"endpoint"`
	PublicKey string `json:"public_key,omitempty"`
}

// sessionPlaceholder ends the agents.txt form of the audit endpoint
// (v0.1.0 Audit-Endpoint); agents.json carries the endpoint without it.
const sessionPlaceholder = "/:session_id"

// V010 renders the agents.json of the agents.txt Format Specification
// v0.1.0 (schema agents-protocol.org/schemas/agents.schema.json).
// Endpoints are rendered as paths relative to the site origin, as the
// schema describes them; an endpoint on another origin keeps its full URL.
//
// session is rendered when a capability requires one or the Session is
// configured; rate_limit when the site-wide rate or MaxSessions is set, the
// rate rounded up to whole requests per minute (the only unit v0.1.0 has);
// audit when enabled.
//
// s must have passed publish.Validate, which holds it to the schema: at
// least one capability (v0.1.0: Allow is required), params unique by name.
func V010(s *config.Site) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("agentsjson: nil site")
	}
	doc := v010Doc{
		ProtocolVersion: ProtocolVersion,
		Site: v010Site{
			Name:        s.Name,
			URL:         s.URL,
			Description: s.Description,
			Contact:     s.Contact,
		},
		Capabilities: make([]v010Capability, 0, len(s.Capabilities)),
		DocsURL:      s.DocsURL,
	}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		vc := v010Capability{
			Name:            c.ID,
			Description:     c.Description,
			Endpoint:        resolve.RelativeEndpoint(s, c.Endpoint),
			Method:          resolve.Method(c),
			RequiresSession: c.RequiresSession,
			HumanHandoff:    c.HumanHandoff,
		}
		for _, p := range c.Params {
			vc.Params = append(vc.Params, jsonenc.Member[v010Param]{Name: p.Name, Value: v010Param{
				Type:        string(resolve.ParamType(p)),
				Description: p.Description,
				Required:    p.Required,
				Default:     p.Default,
				Enum:        p.Enum,
			}})
		}
		doc.Capabilities = append(doc.Capabilities, vc)
	}
	if resolve.NeedsSession(s) || s.Session.TTL != 0 || s.Session.Endpoint != "" {
		doc.Session = &v010Session{
			Endpoint: resolve.RelativeEndpoint(s, resolve.SessionEndpoint(s)),
			TTL:      int64(resolve.SessionTTL(s).Seconds()),
		}
	}
	perMin, maxSessions := resolve.RequestsPerMinute(s.RateLimit), max(s.Session.MaxSessions, 0)
	if perMin > 0 || maxSessions > 0 {
		doc.RateLimit = &v010RateLimit{MaxRequestsPerMinute: perMin, MaxSessions: maxSessions}
	}
	if s.Audit.Enabled {
		ep := resolve.AuditPath
		if s.Audit.Endpoint != "" {
			ep = strings.TrimSuffix(resolve.RelativeEndpoint(s, s.Audit.Endpoint), sessionPlaceholder)
		}
		doc.Audit = &v010Audit{Enabled: true, Endpoint: ep, PublicKey: s.Audit.PublicKey}
	}
	return jsonenc.Encode(doc)
}
