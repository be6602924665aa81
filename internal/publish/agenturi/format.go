package agenturi

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Format is the agent:// descriptors, one per published agent.
var Format discovery.Format = format{}

type format struct{}

func (format) Kind() config.Document { return config.DocDescriptors }

func (format) Render(s *config.Site, env *discovery.Env) ([]discovery.Doc, error) {
	agents := s.PublishedAgents()
	docs := make([]discovery.Doc, 0, len(agents))
	for i := range agents {
		a := agents[i]
		if env.JWKS != nil {
			a = withJWKS(a, env.JWKS)
		}
		b, err := Descriptor(a)
		if err != nil {
			return nil, fmt.Errorf("descriptor %q: %w", a.Name, err)
		}
		h := deprecationHeader(&a, env.LastModified)
		var head http.Header // HEAD's fields, when they differ (signDescriptorHead)
		if env.Key != nil {
			if h == nil {
				h = http.Header{}
			}
			head = h.Clone()
			ctype := discovery.TypeAgentJSON + `; profile="` + Profile + `"`
			if err := env.SignDescriptor(h, head, b, ctype); err != nil {
				return nil, fmt.Errorf("signing descriptor %q: %w", a.Name, err)
			}
		}
		docs = append(docs, discovery.Doc{Name: "descriptor " + a.Name, ContentType: discovery.TypeAgentJSON,
			MaxAge: discovery.MaxAgeAgentJSON, Body: b, Profiles: []string{Profile},
			Paths: []string{env.DescriptorPath(a.Name)}, Header: h, HeadHeader: head})
	}
	return docs, nil
}

// withJWKS returns a with the JWK Set in its authentication object (the
// inline jwks of agent-uri-03 10.1, where 10.3 has verifiers find the key)
// and, unless set, conformance level 3.
func withJWKS(a config.HostedAgent, jwks []byte) config.HostedAgent {
	auth := config.AgentAuthentication{}
	if a.Authentication != nil {
		auth = *a.Authentication
	}
	auth.JWKS = jwks
	a.Authentication = &auth
	if a.ConformanceLevel == nil {
		a.ConformanceLevel = new(3)
	}
	return a
}

// deprecationHeader is what a deprecated descriptor's responses carry
// (agent-uri-03 7.1.3): Deprecation (RFC 9745, the date as @seconds),
// Sunset (RFC 8594) and a Link to the successor version; nil otherwise.
func deprecationHeader(a *config.HostedAgent, lm time.Time) http.Header {
	if a.Status != "deprecated" {
		return nil
	}
	at := a.DeprecatedAt
	if at.IsZero() {
		at = lm
	}
	h := http.Header{"Deprecation": {"@" + strconv.FormatInt(at.Unix(), 10)}}
	if !a.Sunset.IsZero() {
		h["Sunset"] = []string{a.Sunset.UTC().Format(http.TimeFormat)}
	}
	if a.Successor != "" {
		h["Link"] = []string{fmt.Sprintf(`<%s>; rel="successor-version"`, a.Successor)}
	}
	return h
}
