package agentstxt

import (
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/format/txtgrammar"
	"github.com/agentready/agentready/internal/publish/discovery"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/schemagen"
)

// The dialects' names in FieldError.Format.
const (
	fmtDraftCar = "draft-car"
	fmtV010     = "v0.1.0"
)

func (format) TagRules() map[string]fieldcheck.TagRule { return tagRules }

// tagRules explains the validate tags of the dialects' fields, which hold
// whatever is published (the enforcer reads them too).
var tagRules = map[string]fieldcheck.TagRule{
	"DeclarationType":        {Format: fmtDraftCar, Ref: "draft-car 2.3 Declaration-Type"},
	"Capabilities.Protocol":  {Format: fmtDraftCar, Ref: "draft-car 2.5 Protocol"},
	"Capabilities.Auth.Type": {Format: fmtDraftCar, Ref: "draft-car 2.5 Auth"},
	"Capabilities.Params.In": {Format: fmtDraftCar, Ref: "draft-car 2.5 Param location"},
	"Agents.Name":            {Format: fmtDraftCar, Ref: "draft-car 2.7 Agent"},
	"Flows.Name":             {Format: fmtV010, Ref: "v0.1.0 Flow: <name> → <step1>, <step2>"},
	"Flows.Steps":            {Format: fmtV010, Ref: "v0.1.0 Flow: <name> → <step1>, <step2>"},
	"Session.MaxSessions":    {Format: fmtV010, Ref: "v0.1.0 agents.json rate_limit.max_sessions; zero means not declared"},
}

// served says which of the dialect's documents the Formats publish.
type served struct {
	dcTxt, dcJSON     bool // draft-car agents.txt, its agents.json companion
	v010Txt, v010JSON bool // v0.1.0 agents.txt, its agents.json
}

func servedBy(f config.Formats) served {
	companion := f.Serves(config.DocAgentsJSON) && f.AgentsJSON == config.AgentsJSONCompanion
	return served{
		dcTxt:    f.Dialect == config.DialectIETFDraft && f.Serves(config.DocAgentsTxt),
		dcJSON:   f.Dialect == config.DialectIETFDraft && companion,
		v010Txt:  f.Dialect == config.DialectV010 && f.Serves(config.DocAgentsTxt),
		v010JSON: f.Dialect == config.DialectV010 && companion,
	}
}

func (o served) draftCar() bool { return o.dcTxt || o.dcJSON }
func (o served) v010() bool     { return o.v010Txt || o.v010JSON }

// draftCarDoc and v010Doc name the dialect's document a rule is quoted
// from: the agents.txt when it is served, else its agents.json.
func (o served) draftCarDoc() string { return quotedDoc(fmtDraftCar, o.dcTxt) }
func (o served) v010Doc() string     { return quotedDoc(fmtV010, o.v010Txt) }

func quotedDoc(dialect string, txt bool) string {
	if txt {
		return dialect + " agents.txt"
	}
	return dialect + " agents.json"
}

// rules are the dialects' rules, for the documents on serves.
type rules struct {
	*discovery.Check
	on served
}

// Check runs the rules of the agents.txt dialects and of their agents.json
// companions: those of the served dialect's documents, and those of the
// fields both dialects define whatever is published.
func (format) Check(c *discovery.Check) {
	r := rules{Check: c, on: servedBy(c.Formats)}
	c.ReportTags(tagRules, true)
	if r.on.dcTxt {
		c.LineBased("draft-car agents.txt", fmtDraftCar)
	}
	if r.on.v010Txt {
		c.LineBased("v0.1.0 agents.txt", fmtV010)
	}
	r.site()
	r.contact()
	r.session()
	r.flows()
	r.agents()
	for i := range c.Site.Capabilities {
		r.capability(fieldcheck.At("Capabilities", i), &c.Site.Capabilities[i])
	}
}

// site checks the top-level fields the dialects render.
func (r rules) site() {
	s := r.Site
	if r.on.dcJSON {
		r.maxChars("Name", s.Name, fieldcheck.DraftCarMaxName, "site.name")
		r.maxChars("Description", s.Description, fieldcheck.DraftCarMaxDescription, "site.description")
	}
	if len(s.OperatesOn) > 0 && s.DeclarationType != config.DeclarationAgent {
		r.Add("OperatesOn", fmtDraftCar, `is set but `+fieldcheck.Alt("DeclarationType", "declaration_type")+` is not "agent"; draft-car 2.3: Operates-On is not used in platform declarations`)
	}
	if r.on.v010Txt && s.RateLimit.Validate() == nil && int64(s.RateLimit.Requests) > txtgrammar.MaxPerMinuteRequests {
		r.Addf("RateLimit", fmtV010, "%d requests are too many to write per minute in v0.1.0 agents.txt (Rate-Limit: <number>/minute)", s.RateLimit.Requests)
	}
	if r.on.v010() && len(s.Capabilities) == 0 {
		r.Addf("Capabilities", fmtV010, "%s needs at least one capability (Allow is required)", r.on.v010Doc())
	}
	if r.on.v010Txt && !r.on.v010JSON && (resolve.NeedsSession(s) || s.Audit.Enabled) {
		field := "Audit.Enabled"
		for i := range s.Capabilities {
			if s.Capabilities[i].RequiresSession {
				field = fieldcheck.At("Capabilities", i) + ".RequiresSession"
				break
			}
		}
		r.Add(field, fmtV010, "v0.1.0 agents.txt: a site that supports sessions or audit MUST also serve agents.json, which these Formats do not publish")
	}
}

// maxChars applies a maxLength of the draft-car agents.json schema.
func (r rules) maxChars(field, v string, most int, key string) {
	if n := utf8.RuneCountInString(v); n > most {
		r.Addf(field, fmtDraftCar, "is %d characters; draft-car agents.json allows at most %d (%s)", n, most, key)
	}
}

// contact checks Site.Contact: an email for draft-car (2.4 Site-Contact;
// the agents.json schema says format email), an email or URL otherwise.
func (r rules) contact() {
	c := r.Site.Contact
	if c == "" {
		return
	}
	if r.on.draftCar() {
		if !fieldcheck.IsEmail(c) {
			r.Addf("Contact", fmtDraftCar, "%q is not an email address; %s requires one (2.4 Site-Contact, agents.json site.contact format email)", c, r.on.draftCarDoc())
		}
		return
	}
	if fieldcheck.IsEmail(c) || fieldcheck.IsEmail(strings.TrimPrefix(c, "mailto:")) {
		return
	}
	if strings.Contains(c, "://") {
		r.WebURL("Contact", c, fieldcheck.WebSchemes)
		return
	}
	r.Addf("Contact", "", "%q is neither an email address nor a URL (v0.1.0 Contact, agents.md Contact)", c)
}

// session checks the v0.1.0 session and audit settings. They are checked
// whatever is published: the enforcer runs sessions from them.
func (r rules) session() {
	s := r.Site
	r.Path("Session.Endpoint", s.Session.Endpoint, fmtV010, "v0.1.0 agents.json session.endpoint")
	if ttl := s.Session.TTL; ttl != 0 && (ttl < time.Minute || ttl%time.Second != 0) {
		r.Addf("Session.TTL", fmtV010, "%v is not whole seconds of at least 60 (v0.1.0 Session-TTL <number>s; agents.json session.ttl minimum 60)", ttl)
	}
	if k := s.Audit.PublicKey; k != "" {
		b, err := base64.StdEncoding.DecodeString(k)
		switch {
		case err != nil:
			r.Add("Audit.PublicKey", fmtV010, "is not standard base64 (v0.1.0 audit.public_key: a base64 Ed25519 public key)")
		case len(b) != ed25519.PublicKeySize:
			r.Addf("Audit.PublicKey", fmtV010, "decodes to %d bytes; an Ed25519 public key has %d (v0.1.0 audit.public_key)", len(b), ed25519.PublicKeySize)
		}
	}
}

// flows checks the v0.1.0 suggested workflows.
func (r rules) flows() {
	seen := map[string]int{}
	for i, fl := range r.Site.Flows {
		p := fieldcheck.At("Flows", i)
		if !txtgrammar.FlowNameOK(fl.Name) {
			r.Addf(p+".Name", fmtV010, `%q contains "," or "→" (or "->"), which separate a flow's name from its steps (v0.1.0 Flow: <name> → <step1>, <step2>)`, fl.Name)
		}
		if fl.Name != "" {
			if j, ok := seen[fl.Name]; ok {
				r.Addf(p+".Name", fmtV010, "%q is already the name of %s (v0.1.0 Flow names)", fl.Name, fieldcheck.Ref(fieldcheck.At("Flows", j)))
			} else {
				seen[fl.Name] = i
			}
		}
		for k, step := range fl.Steps {
			r.CapabilityRef(fieldcheck.At(p+".Steps", k), step)
		}
	}
}

// agents checks how the per-agent policies name their agents (draft-car
// 2.7, 4.2): the enforcer matches them so whatever is published.
func (r rules) agents() {
	seen := map[string]int{}
	def := -1
	for i, a := range r.Site.Agents {
		p := fieldcheck.At("Agents", i)
		switch {
		case a.Name == "":
			// the required tag reports it
		case a.Name == "*":
			if def >= 0 {
				r.Addf(p+".Name", fmtDraftCar, `is a second default policy "*"; %s is already the default (draft-car 2.7)`, fieldcheck.Ref(fieldcheck.At("Agents", def)))
			} else {
				def = i
			}
		case strings.Contains(a.Name, "*"):
			r.Addf(p+".Name", fmtDraftCar, `%q is not a pattern: names are matched exactly against User-Agent product tokens, and "*" alone is the default policy (draft-car 2.7)`, a.Name)
		case !fieldcheck.IsToken(a.Name):
			r.Addf(p+".Name", fmtDraftCar, "%q is not a User-Agent product token (RFC 9110 5.6.2: no spaces, '/', ';', '(', ')', ',' ...), so no User-Agent can match it (draft-car 4.2)", a.Name)
		default:
			key := strings.ToLower(a.Name)
			if j, ok := seen[key]; ok {
				r.Addf(p+".Name", fmtDraftCar, "%q duplicates %s (%q): agent names are matched case-insensitively (draft-car 4.2)", a.Name, fieldcheck.Ref(fieldcheck.At("Agents", j)), r.Site.Agents[j].Name)
			} else {
				seen[key] = i
			}
		}
	}
}

// Schema is the dialects' part of the file's schema: draft-car 2.5 and its
// agents.json schema, or the v0.1.0 agents.txt and agents.json, as the
// file's dialect says.
func (format) Schema() discovery.Schema {
	obj := func(props map[string]any) map[string]any { return map[string]any{"properties": props} }
	capabilities := func(item map[string]any) map[string]any { return map[string]any{"items": item} }
	draftCar := obj(map[string]any{
		"name":        map[string]any{"maxLength": fieldcheck.DraftCarMaxName},
		"description": map[string]any{"maxLength": fieldcheck.DraftCarMaxDescription},
		"contact":     map[string]any{"format": "email"},
		"capabilities": capabilities(map[string]any{
			"properties": map[string]any{
				"id":          map[string]any{"pattern": `^[a-z0-9][a-z0-9-]*$`, "maxLength": fieldcheck.DraftCarMaxID},
				"description": map[string]any{"maxLength": fieldcheck.DraftCarMaxDescription},
				"params": map[string]any{"items": obj(map[string]any{
					"name": map[string]any{"pattern": "^[^\\t\\n\\f\\r (),]+$"},
					"type": map[string]any{"enum": []any{"", config.TypeString, config.TypeInteger, config.TypeNumber, config.TypeBoolean}},
				})},
				// 2.5: Auth-Endpoint MUST be present when Auth is
				// bearer-token or oauth2.
				"auth": map[string]any{
					"if":   schemagen.Has("type", map[string]any{"enum": []any{config.AuthBearerToken, config.AuthOAuth2}}),
					"then": schemagen.Has("token_endpoint", map[string]any{"minLength": 1}),
				},
			},
		}),
	})
	v010 := schemagen.Has("capabilities", map[string]any{"minItems": 1, "items": obj(map[string]any{
		"id":     map[string]any{"pattern": `^[a-z][a-z0-9_.]*$`},
		"method": fieldcheck.MethodsSchema(),
	})})
	return discovery.Schema{File: []any{map[string]any{
		"if":   schemagen.Has("dialect", map[string]any{"const": config.DialectV010.String()}),
		"then": v010,
		"else": draftCar,
	}}}
}
