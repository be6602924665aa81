package config

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/format/txtgrammar"
)

// Limits of the draft-car agents.json schema (site.name, site.description
// and capability description, capability id).
const (
	draftCarMaxName        = 200
	draftCarMaxDescription = 500
	draftCarMaxID          = 100
)

// semVer is the SemVer 2.0.0 pattern of the agent:// descriptor schema.
var semVer = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// siteFields checks the top-level fields of the Site.
func (r *report) siteFields() {
	s := r.site
	if r.on.dcJSON {
		if n := utf8.RuneCountInString(s.Name); n > draftCarMaxName {
			r.addf("Name", fmtDraftCar, "is %d characters; draft-car agents.json allows at most %d (site.name)", n, draftCarMaxName)
		}
		if n := utf8.RuneCountInString(s.Description); n > draftCarMaxDescription {
			r.addf("Description", fmtDraftCar, "is %d characters; draft-car agents.json allows at most %d (site.description)", n, draftCarMaxDescription)
		}
	}
	// A blank value is set but says nothing: agents.md refuses it as its
	// H1 and as a line, and the agents.txt lines would be empty.
	if s.Name != "" && strings.TrimSpace(s.Name) == "" {
		r.add("Name", "", "is blank (only white space)")
	}
	if s.Description != "" && strings.TrimSpace(s.Description) == "" {
		r.add("Description", "", "is blank (only white space): write the description or leave it out")
	}
	if !validDialect(s.Dialect) {
		r.addf("Dialect", "", "%s is not a dialect: %s", alt(s.Dialect.String(), fmt.Sprintf("%q", s.Dialect.String())),
			alt("config.DialectIETFDraft or DialectV010", "draft-car or v0.1.0"))
	}
	switch s.ImplicitAccess {
	case "", implicitAll, implicitAI:
	default:
		r.addf("ImplicitAccess", "", "%q is not a scope: %s", s.ImplicitAccess,
			alt(`"all-agents" (agentready.ImplicitAllAgents) or "ai-agents" (ImplicitAIAgents)`, "all-agents or ai-agents"))
	}
	r.webURL("URL", s.URL, webSchemes)
	r.contact()
	r.webURL("PrivacyPolicy", s.PrivacyPolicy, webSchemes)
	if len(s.OperatesOn) > 0 && s.DeclarationType != DeclarationAgent {
		r.add("OperatesOn", fmtDraftCar, `is set but `+alt("DeclarationType", "declaration_type")+` is not "agent"; draft-car 2.3: Operates-On is not used in platform declarations`)
	}
	for i, u := range s.OperatesOn {
		if strings.TrimSpace(u) == "" {
			r.add(at("OperatesOn", i), "", "is empty")
		}
		r.webURL(at("OperatesOn", i), u, webSchemes)
	}
	if !txtgrammar.TimeOK(s.GeneratedAt) {
		r.addf("GeneratedAt", "", "%v has no RFC 3339 form (years 0000-9999), which Generated-At and generatedAt are written in", s.GeneratedAt)
	}
	if s.Version != "" && !semVer.MatchString(s.Version) {
		r.addf("Version", fmtAgentURI, "%q is not a SemVer 2.0.0 version (agent:// 7.1.1: the derived descriptor's version)", s.Version)
	}
	r.webURL("DocsURL", s.DocsURL, webSchemes)
	r.webURL("AgentsJSONURL", s.AgentsJSONURL, webSchemes)
	if err := s.RateLimit.Validate(); err != nil {
		r.add("RateLimit", "", err.Error()+rateRule)
	} else if r.on.v010Txt && int64(s.RateLimit.Requests) > txtgrammar.MaxPerMinuteRequests {
		r.addf("RateLimit", fmtV010, "%d requests are too many to write per minute in v0.1.0 agents.txt (Rate-Limit: <number>/minute)", s.RateLimit.Requests)
	}
	if r.on.v010() && len(s.Capabilities) == 0 {
		r.addf("Capabilities", fmtV010, "%s needs at least one capability (Allow is required)", r.on.v010Doc())
	}
	if r.on.v010Txt && !r.on.v010JSON && (s.needsSession() || s.Audit.Enabled) {
		field := "Audit.Enabled"
		for i := range s.Capabilities {
			if s.Capabilities[i].RequiresSession {
				field = at("Capabilities", i) + ".RequiresSession"
				break
			}
		}
		r.add(field, fmtV010, "v0.1.0 agents.txt: a site that supports sessions or audit MUST also serve agents.json, which these Formats do not publish")
	}
}

// The scopes of Site.ImplicitAccess (agentready.ImplicitAllAgents and
// ImplicitAIAgents).
const (
	implicitAll = "all-agents"
	implicitAI  = "ai-agents"
)

func validDialect(d Dialect) bool { return d == DialectIETFDraft || d == DialectV010 }

const rateRule = " (Rate-Limit is N/second, N/minute, N/hour or N/day, draft-car 2.5)"

// contact checks Site.Contact: an email for draft-car (2.4 Site-Contact;
// the agents.json schema says format email), an email or URL otherwise.
func (r *report) contact() {
	c := r.site.Contact
	if c == "" {
		return
	}
	if r.on.draftCar() {
		if !isEmail(c) {
			r.addf("Contact", fmtDraftCar, "%q is not an email address; %s requires one (2.4 Site-Contact, agents.json site.contact format email)", c, r.on.draftCarDoc())
		}
		return
	}
	if isEmail(c) || isEmail(strings.TrimPrefix(c, "mailto:")) {
		return
	}
	if strings.Contains(c, "://") {
		r.webURL("Contact", c, webSchemes)
		return
	}
	r.addf("Contact", "", "%q is neither an email address nor a URL (v0.1.0 Contact, agents.md Contact)", c)
}

// isEmail reports whether s is a bare addr-spec whose domain is a host
// name, as JSON Schema's "email" format wants.
func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	i := strings.LastIndexByte(s, '@')
	local, domain := s[:i], s[i+1:]
	return len(local) <= 64 && isHostname(domain)
}

// isHostname reports whether s is a DNS host name (RFC 1123 labels).
func isHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// session checks the v0.1.0 session and audit settings. They are checked
// whatever is published: the enforcer runs sessions from them.
func (r *report) session() {
	s := r.site
	r.path("Session.Endpoint", s.Session.Endpoint, fmtV010, "v0.1.0 agents.json session.endpoint")
	if ttl := s.Session.TTL; ttl != 0 && (ttl < time.Minute || ttl%time.Second != 0) {
		r.addf("Session.TTL", fmtV010, "%v is not whole seconds of at least 60 (v0.1.0 Session-TTL <number>s; agents.json session.ttl minimum 60)", ttl)
	}
	r.webURL("Audit.Endpoint", s.Audit.Endpoint, webSchemes)
	if k := s.Audit.PublicKey; k != "" {
		b, err := base64.StdEncoding.DecodeString(k)
		switch {
		case err != nil:
			r.add("Audit.PublicKey", fmtV010, "is not standard base64 (v0.1.0 audit.public_key: a base64 Ed25519 public key)")
		case len(b) != ed25519.PublicKeySize:
			r.addf("Audit.PublicKey", fmtV010, "decodes to %d bytes; an Ed25519 public key has %d (v0.1.0 audit.public_key)", len(b), ed25519.PublicKeySize)
		}
	}
}

// flows checks the v0.1.0 suggested workflows.
func (r *report) flows() {
	seen := map[string]int{}
	for i, fl := range r.site.Flows {
		p := at("Flows", i)
		if !txtgrammar.FlowNameOK(fl.Name) {
			r.addf(p+".Name", fmtV010, `%q contains "," or "→" (or "->"), which separate a flow's name from its steps (v0.1.0 Flow: <name> → <step1>, <step2>)`, fl.Name)
		}
		if fl.Name != "" {
			if j, ok := seen[fl.Name]; ok {
				r.addf(p+".Name", fmtV010, "%q is already the name of %s (v0.1.0 Flow names)", fl.Name, ref(at("Flows", j)))
			} else {
				seen[fl.Name] = i
			}
		}
		for k, step := range fl.Steps {
			r.capabilityRef(at(p+".Steps", k), step)
		}
	}
}
