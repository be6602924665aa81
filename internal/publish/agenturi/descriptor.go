package agenturi

import (
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsonenc"
)

// Profile is the descriptor profile URI for content negotiation (7.4):
// Accept and Content-Type carry application/agent+json; profile="...".
const Profile = "https://agent-uri.org/profile/v3"

// MediaType is the descriptor media type (12.3).
const MediaType = "application/agent+json"

// descriptor is an agent descriptor (7.1) with its members in the order of
// the draft's Appendix A example.
type descriptor struct {
	Context           any                         `json:"@context,omitempty"`
	Name              string                      `json:"name"`
	Description       string                      `json:"description,omitempty"`
	URL               string                      `json:"url,omitempty"`
	Status            string                      `json:"status,omitempty"`
	ConformanceLevel  *int                        `json:"conformanceLevel,omitempty"`
	Environment       string                      `json:"environment,omitempty"`
	Provider          *config.Provider            `json:"provider,omitempty"`
	DocumentationURL  string                      `json:"documentationUrl,omitempty"`
	InteractionModel  []string                    `json:"interactionModel,omitempty"`
	Version           string                      `json:"version"`
	SupportedVersions map[string]string           `json:"supportedVersions,omitempty"`
	Transport         *config.Transport           `json:"transport,omitempty"`
	Skills            []skill                     `json:"skills"`
	Authentication    *config.AgentAuthentication `json:"authentication,omitempty"`
}

// skill is a descriptor skill (7.1.4) in the order of Appendix A.
type skill struct {
	ID              string                      `json:"id"`
	Name            string                      `json:"name"`
	Version         string                      `json:"version,omitempty"`
	Description     string                      `json:"description"`
	Tags            []string                    `json:"tags,omitempty"`
	Input           map[string]any              `json:"input,omitempty"`
	Output          map[string]any              `json:"output,omitempty"`
	Streaming       bool                        `json:"streaming,omitempty"`
	StreamingFormat string                      `json:"streamingFormat,omitempty"`
	Idempotent      bool                        `json:"idempotent,omitempty"`
	ContentTypes    *contentTypes               `json:"contentTypes,omitempty"`
	Status          string                      `json:"status,omitempty"`
	Authentication  *config.AgentAuthentication `json:"authentication,omitempty"`
	Depends         []depends                   `json:"depends,omitempty"`
}

type contentTypes struct {
	Accepts  []string `json:"accepts,omitempty"`
	Produces []string `json:"produces,omitempty"`
}

type depends struct {
	URI               string `json:"uri"`
	Relation          string `json:"relation,omitempty"`
	VersionConstraint string `json:"versionConstraint,omitempty"`
}

// Descriptor renders the agent descriptor of a (draft-narvaneni-agent-uri-03
// section 7), served as MediaType with Profile.
//
// One @context URL renders as a string, several as an array (both JSON-LD
// forms the schema accepts). transport is omitted when no transport is set:
// the schema requires at least one key in it. publish.Validate has required
// what 7.1.1 requires: a name, a version and a skill.
func Descriptor(a config.HostedAgent) ([]byte, error) {
	d := descriptor{
		Name:              a.Name,
		Description:       a.Description,
		URL:               a.URL,
		Status:            a.Status,
		ConformanceLevel:  a.ConformanceLevel,
		Environment:       a.Environment,
		DocumentationURL:  a.DocumentationURL,
		InteractionModel:  a.InteractionModels,
		Version:           a.Version,
		SupportedVersions: a.SupportedVersions,
		Skills:            make([]skill, 0, len(a.Skills)),
		Authentication:    nonEmptyAuth(a.Authentication),
	}
	switch len(a.Context) {
	case 0:
	case 1:
		d.Context = a.Context[0]
	default:
		d.Context = a.Context
	}
	if a.Provider != nil && *a.Provider != (config.Provider{}) {
		d.Provider = a.Provider
	}
	if a.Transport != (config.Transport{}) {
		t := a.Transport
		d.Transport = &t
	}
	for i := range a.Skills {
		d.Skills = append(d.Skills, skillOf(&a.Skills[i]))
	}
	return jsonenc.Encode(d)
}

func skillOf(s *config.Skill) skill {
	out := skill{
		ID:              s.ID,
		Name:            s.Name,
		Version:         s.Version,
		Description:     s.Description,
		Tags:            s.Tags,
		Input:           s.Input,
		Output:          s.Output,
		Streaming:       s.Streaming,
		StreamingFormat: s.StreamingFormat,
		Idempotent:      s.Idempotent,
		Status:          s.Status,
		Authentication:  nonEmptyAuth(s.Authentication),
	}
	if len(s.Accepts) > 0 || len(s.Produces) > 0 {
		out.ContentTypes = &contentTypes{Accepts: s.Accepts, Produces: s.Produces}
	}
	for _, d := range s.Depends {
		out.Depends = append(out.Depends, depends(d))
	}
	return out
}

// nonEmptyAuth drops an authentication object with nothing in it, which
// would say nothing and read as a requirement.
func nonEmptyAuth(a *config.AgentAuthentication) *config.AgentAuthentication {
	if a == nil || (len(a.Schemes) == 0 && a.AuthorizationServer == "" && a.ProtectedResourceMetadata == "" && a.JWKSURI == "" && len(a.JWKS) == 0) {
		return nil
	}
	return a
}
