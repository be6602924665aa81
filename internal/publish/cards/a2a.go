package cards

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// The A2A agent card renderings, the values of A2AOptions.Version.
const (
	// A2AVersion10 is the AgentCard of A2A v1.0 (a2aproject/A2A v1.0.1,
	// specification/a2a.proto and docs/specification.md 4.4.1, 8).
	A2AVersion10 = "1.0"
	// A2AVersion03 is the AgentCard of A2A v0.3.0 (specification 5.5), for
	// clients that have not moved to 1.0.
	A2AVersion03 = "0.3"
)

// A2AOptions say how the A2A agent card is rendered.
type A2AOptions struct {
	// Version is A2AVersion10 (the default when empty) or A2AVersion03.
	Version string
	// Key, when set, signs the v1.0 card (A2A 8.4): a P-256 key, ES256,
	// whose JWK has the key id KeyID. A v0.3 card is not signed: v0.3.0
	// defines the signatures member but no canonical form to sign.
	Key   *ecdsa.PrivateKey
	KeyID string
}

// A2ACardWith returns the site's A2A agent card, rendered as o says (v1.0
// by default), or nil when it declares no A2A capability with an endpoint
// (an interface is REQUIRED, 4.4.1). Each A2A capability is a skill carrying its own
// security requirements; each distinct A2A endpoint is an interface; each
// distinct declared auth is a security scheme (a2a_auth.go).
func A2ACardWith(s *config.Site, o A2AOptions) ([]byte, error) {
	a := a2aAgentOf(s)
	if len(a.interfaces) == 0 {
		return nil, nil
	}
	var card any
	switch o.Version {
	case "", A2AVersion10:
		c := a.v10()
		if o.Key != nil {
			sig, err := signA2ACard(c, o.Key, o.KeyID)
			if err != nil {
				return nil, err
			}
			c.Signatures = []agentCardSignature{sig}
		}
		card = c
	case A2AVersion03:
		card = a.v03()
	default:
		return nil, fmt.Errorf("cards: unknown A2A version %q (want %q or %q)", o.Version, A2AVersion10, A2AVersion03)
	}
	b, err := marshalCard(card)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// marshalCard is json.MarshalIndent without HTML escaping: a card is not
// embedded in HTML, and "&" in a URL reads better as itself.
func marshalCard(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// a2aAgent is what both renderings say, derived from the declaration.
type a2aAgent struct {
	site       *config.Site
	interfaces []a2aInterface // distinct endpoints, in declaration order
	skills     []a2aSkill
	schemes    []*authScheme // distinct, in order of first use
	streaming  bool          // some A2A capability streams
	anonymous  bool          // some A2A capability needs no credential
}

type a2aInterface struct {
	url, binding, version string // version "" when the declaration names none
}

type a2aSkill struct {
	c      *config.Capability
	scheme *authScheme // nil: no credential
}

// a2aAgentOf collects the site's A2A capabilities.
func a2aAgentOf(s *config.Site) *a2aAgent {
	a := &a2aAgent{site: s}
	seen := map[string]bool{}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if c.Protocol != config.ProtocolA2A {
			continue
		}
		if c.Endpoint != "" && !seen[c.Endpoint] {
			seen[c.Endpoint] = true
			a.interfaces = append(a.interfaces, interfaceOf(s, c.Endpoint))
		}
		sk := a2aSkill{c: c, scheme: a.scheme(&c.Auth)}
		a.anonymous = a.anonymous || sk.scheme == nil
		a.streaming = a.streaming || c.Streaming
		a.skills = append(a.skills, sk)
	}
	return a
}

// interfaceOf is the interface of an A2A endpoint: JSON-RPC (v0.3.0's
// default preferredTransport, and the first of the core bindings a2a.proto
// names for AgentInterface.protocol_binding) unless the declaration's A2A
// protocol entry (AWP.Protocols["a2a"], AWP 5.5: version, endpoint, and a
// "transport" extra) names another binding or a version, for this
// endpoint or, without an endpoint, for every one. Several endpoints are
// several interfaces of one agent: A2A 1.0 5.1 and 8.3.2 have a client
// send everything to the one it picks, so each should serve every skill.
func interfaceOf(s *config.Site, endpoint string) a2aInterface {
	in := a2aInterface{url: endpoint, binding: "JSONRPC"}
	if p, ok := s.AWP.Protocols["a2a"]; ok && (p.Endpoint == "" || p.Endpoint == endpoint) {
		in.version = p.Version
		if t := strings.TrimSpace(p.Extra["transport"]); t != "" {
			in.binding = t
		}
	}
	return in
}

// name is a skill's human-readable name (config.Capability.Name, default
// its ID).
func (sk a2aSkill) name() string { return firstNonEmpty(sk.c.Name, sk.c.ID) }

func (sk a2aSkill) description() string { return firstNonEmpty(sk.c.Description, sk.c.ID) }

// tags are the declared tags, or the ID: AgentSkill.tags is REQUIRED and
// A2A 1.0 5.7 asks a required array for at least one element.
func (sk a2aSkill) tags() []string {
	if len(sk.c.Tags) > 0 {
		return sk.c.Tags
	}
	return []string{sk.c.ID}
}

// scopes are the OAuth scopes a skill's requirement names: none for a
// scheme that is not OAuth 2.0 (OpenAPI's Security Requirement Object:
// "For other security scheme types, the array MUST be empty").
func (sk a2aSkill) scopes() []string {
	if sk.scheme == nil || !sk.scheme.oauthFlow() {
		return nil
	}
	return sk.c.Auth.Scopes
}

// The media types a declaration implies: its capabilities take parameters
// and return JSON, and agents converse in text.
var a2aModes = []string{"text/plain", "application/json"}

func (a *a2aAgent) description() string {
	return firstNonEmpty(a.site.Description, a.site.Name)
}

// A2A v1.0 AgentCard (a2a.proto, message AgentCard; specification 4.4.1).
// The JSON names are the proto's in lowerCamelCase (5.5); a field the
// declaration gives no value is omitted, as ProtoJSON omits it and as the
// signed form requires (8.4.1 rule 1: only REQUIRED and explicitly set
// optional fields are present), so the card as served is the signing
// input without its signatures.
type agentCardV10 struct {
	Name                 string                      `json:"name"`
	Description          string                      `json:"description"`
	SupportedInterfaces  []agentInterface            `json:"supportedInterfaces"`
	Provider             *provider                   `json:"provider,omitempty"`
	Version              string                      `json:"version"`
	DocumentationURL     string                      `json:"documentationUrl,omitempty"`
	Capabilities         agentCapabilities           `json:"capabilities"`
	SecuritySchemes      map[string]securitySchemeV1 `json:"securitySchemes,omitempty"`
	SecurityRequirements []securityRequirement       `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                    `json:"defaultInputModes"`
	DefaultOutputModes   []string                    `json:"defaultOutputModes"`
	Skills               []skillV10                  `json:"skills"`
	Signatures           []agentCardSignature        `json:"signatures,omitempty"`
}

// agentInterface is AgentInterface (4.4.6): url, protocolBinding and
// protocolVersion are REQUIRED.
type agentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
}

type provider struct {
	Organization string `json:"organization"`
	URL          string `json:"url"`
}

// agentCapabilities is AgentCapabilities (4.4.3). streaming is an
// optional bool, present because the declaration says it either way (a
// capability's Streaming); pushNotifications and extendedAgentCard have
// no declaration and stay unset.
type agentCapabilities struct {
	Streaming *bool `json:"streaming,omitempty"`
}

type skillV10 struct {
	ID                   string                `json:"id"`
	Name                 string                `json:"name"`
	Description          string                `json:"description"`
	Tags                 []string              `json:"tags"`
	SecurityRequirements []securityRequirement `json:"securityRequirements,omitempty"`
}

// securityRequirement is SecurityRequirement (4.5): a map of scheme names
// to the scopes required, each a StringList. As in OpenAPI, whose
// Security Requirement Object A2A ported (v0.3.0 5.5 says so), a list of
// requirements is alternatives and one requirement's schemes are all
// needed; an empty requirement lets a client in without credentials.
type securityRequirement struct {
	Schemes map[string]stringList `json:"schemes,omitempty"`
}

// stringList is StringList: an empty list is omitted (ProtoJSON, 8.4.1).
type stringList struct {
	List []string `json:"list,omitempty"`
}

// v10 is the v1.0 card.
func (a *a2aAgent) v10() *agentCardV10 {
	s := a.site
	card := &agentCardV10{
		Name: s.Name, Description: a.description(), Version: resolve.Version(s),
		Provider: &provider{Organization: s.Name, URL: s.URL}, DocumentationURL: s.DocsURL,
		Capabilities:      agentCapabilities{Streaming: &a.streaming},
		DefaultInputModes: a2aModes, DefaultOutputModes: a2aModes,
	}
	for _, in := range a.interfaces {
		card.SupportedInterfaces = append(card.SupportedInterfaces, agentInterface{
			URL: in.url, ProtocolBinding: in.binding, ProtocolVersion: firstNonEmpty(in.version, A2AVersion10)})
	}
	for _, sc := range a.schemes {
		if card.SecuritySchemes == nil {
			card.SecuritySchemes = map[string]securitySchemeV1{}
		}
		card.SecuritySchemes[sc.name] = sc.v10()
	}
	for _, sk := range a.skills {
		card.Skills = append(card.Skills, skillV10{ID: sk.c.ID, Name: sk.name(), Description: sk.description(),
			Tags: sk.tags(), SecurityRequirements: a.requirementsV10(sk)})
	}
	card.SecurityRequirements = a.cardRequirementsV10()
	return card
}

// requirementsV10 is a skill's requirement: its own scheme with its
// scopes; for a skill without a credential on a card that has
// requirements, the empty requirement, so that it does not inherit the
// card's.
func (a *a2aAgent) requirementsV10(sk a2aSkill) []securityRequirement {
	switch {
	case sk.scheme != nil:
		return []securityRequirement{{Schemes: map[string]stringList{sk.scheme.name: {List: sk.scopes()}}}}
	case len(a.schemes) > 0:
		return []securityRequirement{{}}
	}
	return nil
}

// cardRequirementsV10 are the alternatives of contacting the agent at
// all: each scheme a skill uses, with the scopes the skills using it ask
// for, and the empty requirement when a skill needs none.
func (a *a2aAgent) cardRequirementsV10() []securityRequirement {
	var reqs []securityRequirement
	for _, sc := range a.schemes {
		reqs = append(reqs, securityRequirement{Schemes: map[string]stringList{sc.name: {List: a.scopesOf(sc)}}})
	}
	if len(reqs) > 0 && a.anonymous {
		reqs = append(reqs, securityRequirement{})
	}
	return reqs
}

// scopesOf are the scopes of sc that every skill using it asks for: a
// card-level requirement must not ask a client for more than one skill
// needs.
func (a *a2aAgent) scopesOf(sc *authScheme) []string {
	var common []string
	first := true
	for _, sk := range a.skills {
		if sk.scheme != sc {
			continue
		}
		if first {
			common, first = append([]string(nil), sk.scopes()...), false
			continue
		}
		kept := common[:0]
		for _, s := range common {
			for _, t := range sk.scopes() {
				if s == t {
					kept = append(kept, s)
					break
				}
			}
		}
		common = kept
	}
	return common
}
