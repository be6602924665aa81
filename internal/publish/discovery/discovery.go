// Package discovery is what every discovery format implements: a Format
// renders its documents from a validated Site, checks the Site against its
// own rules and adds its part to the declaration file's JSON Schema.
// internal/publish holds the list of formats (Formats, in the order the
// documents are served) and loops over it; config knows none of them
// (docs/design.md, "Architecture").
package discovery

import (
	"crypto/ecdsa"
	"net/http"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
)

// Format is one discovery format.
type Format interface {
	// Kind is the document kind Formats.Disabled and Options.MaxAge name.
	Kind() config.Document
	// Render renders the format's documents; it is called only when the
	// kind is served.
	Render(s *config.Site, env *Env) ([]Doc, error)
	// Check reports the problems of the Site under the format's rules;
	// it is called whatever is served, and each rule says when it holds.
	Check(c *Check)
	// TagRules explains the validate tags of the fields the format's
	// rules own (fieldcheck.TagRule), by field path without indices.
	TagRules() map[string]fieldcheck.TagRule
	// Schema is the format's part of the declaration file's JSON Schema.
	Schema() Schema
}

// Schema is a format's part of the declaration file's JSON Schema: what
// its rules say that JSON Schema can.
type Schema struct {
	// Fields add keywords to fields, by "Type.Field" ("File.Field" for
	// the Site's own), as schemagen.Generator.Rules.
	Fields map[string]map[string]any
	// File are rules of the whole file, added to its def's allOf.
	File []any
}

// Env is what a format renders with besides the Site.
type Env struct {
	Formats config.Formats
	// LastModified is the documents' Last-Modified, whole seconds, UTC.
	LastModified time.Time
	// DescriptorURL is the URL an agent:// descriptor is served at.
	DescriptorURL func(name string) string
	// DescriptorPath is the path an agent:// descriptor is served at.
	DescriptorPath func(name string) string
	// Key signs descriptors and the A2A card when set; KeyID is its RFC
	// 7638 thumbprint and JWKS the JWK Set of its public half.
	Key   *ecdsa.PrivateKey
	KeyID string
	JWKS  []byte
	// SignDescriptor signs a descriptor response: get the GET response's
	// header fields, head HEAD's (agent-uri-03 10.3).
	SignDescriptor func(get, head http.Header, body []byte, ctype string) error
	// A2AVersion is the A2A agent card's version ("" the default).
	A2AVersion string
}

// Doc is one rendered document; publish.Render makes it a
// publish.Document (its MaxAge may be overridden there).
type Doc struct {
	Name        string
	Paths       []string
	ContentType string
	Body        []byte
	MaxAge      time.Duration // the default; Options.MaxAge overrides it
	Profiles    []string
	Alternates  []string
	Header      http.Header
	HeadHeader  http.Header
}

// Content types of the published documents.
const (
	// TypeText is agents.txt's: draft-car 2.1 says it MUST be served
	// as "text/plain; charset=utf-8".
	TypeText = "text/plain; charset=utf-8"
	// TypeJSON is for the JSON documents without a media type of their
	// own (agents.json, AWP agent.json). draft-car 3.1 says agents.json
	// MUST carry the charset parameter, so all of them do.
	TypeJSON = "application/json; charset=utf-8"
	// TypeMarkdown is agents.md's (agents.md 1 allows text/markdown or
	// text/plain; RFC 7763 makes charset required for text/markdown).
	TypeMarkdown = "text/markdown; charset=utf-8"
	// TypeAgentJSON is the agent:// descriptor media type
	// (draft-narvaneni-agent-uri-03 7.5, 12.3). A Doc with Profiles is
	// served with the first profile as its profile parameter (7.4).
	TypeAgentJSON = "application/agent+json"
)

// Default Cache-Control max-ages.
const (
	// MaxAgeAgentsTxt is draft-car 5.1's RECOMMENDED 300 s, for agents.txt
	// and its agents.json companion.
	MaxAgeAgentsTxt = 300 * time.Second
	// MaxAgeAgentsMD is agents.md 1's "Cache-Control: public, max-age=86400".
	MaxAgeAgentsMD = 24 * time.Hour
	// MaxAgeAgentJSON is for AWP's agent.json, agent:// descriptors and the
	// cards. Neither draft names a lifetime (agent:// 5.3 only asks for
	// Cache-Control plus ETag or Last-Modified), so agentready uses
	// draft-car's 300 s: short enough that an edited declaration reaches
	// agents within minutes, and revalidation is a cheap 304 thanks to
	// the ETag.
	MaxAgeAgentJSON = 300 * time.Second
)
