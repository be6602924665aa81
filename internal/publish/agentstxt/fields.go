package agentstxt

// field is one key of either grammar. Both grammars share one table so that
// the renderer writes exactly the spellings the parser recognises.
type field uint8

const (
	fUnknown field = iota

	// draft-car header and site fields (2.3, 2.4, 3.2).
	fSpecVersion
	fGeneratedAt
	fDeclarationType
	fOperatesOn
	fSiteName
	fSiteURL
	fSiteDescription
	fSiteContact
	fSitePrivacyPolicy
	fAgentsJSON // shared with v0.1.0

	// draft-car blocks and access control (2.5-2.7).
	fCapability
	fAllow // shared with v0.1.0, where it names a capability
	fDisallow
	fAgent

	// draft-car Capability block fields (2.5).
	fEndpoint
	fMethod
	fProtocol
	fAuth
	fAuthEndpoint
	fAuthDocs
	fScopes
	fRateLimit // also an Agent block field, and a v0.1.0 site field
	fDescription
	fOpenAPI
	fParam
	// fSessionEndpoint is agentready's extension of the Capability block
	// (2.5: "Fields not defined in this document MUST be ignored by
	// parsers"): the v0.1.0 session endpoint a capability that requires a
	// session is used through.
	fSessionEndpoint

	// draft-car Agent block fields (2.7).
	fCapabilities
	fAgentDeclaration
	// fProvenRateLimit and fProvenCapabilities are agentready's extension
	// of the Agent block (2.5: "Fields not defined in this document MUST
	// be ignored by parsers"): the limit and capabilities of a client that
	// proves it is the agent (config.AgentPolicy.Proven; on "*", an agent
	// the site does not declare whose operator is proven). Rate-Limit and
	// Capabilities stay what a client naming the agent gets (4.2), so a
	// parser that ignores them reads the policy it read before.
	fProvenRateLimit
	fProvenCapabilities

	// v0.1.0 fields ("Fields" table).
	fSite
	fURL
	fContact
	fFlow
	fFlowDescription
	fSessionTTL
	fAudit
	fAuditEndpoint

	fieldCount
)

// fieldNames are the canonical spellings, as rendered.
var fieldNames = [fieldCount]string{
	fSpecVersion:        "Spec-Version",
	fGeneratedAt:        "Generated-At",
	fDeclarationType:    "Declaration-Type",
	fOperatesOn:         "Operates-On",
	fSiteName:           "Site-Name",
	fSiteURL:            "Site-URL",
	fSiteDescription:    "Site-Description",
	fSiteContact:        "Site-Contact",
	fSitePrivacyPolicy:  "Site-Privacy-Policy",
	fAgentsJSON:         "Agents-JSON",
	fCapability:         "Capability",
	fAllow:              "Allow",
	fDisallow:           "Disallow",
	fAgent:              "Agent",
	fEndpoint:           "Endpoint",
	fMethod:             "Method",
	fProtocol:           "Protocol",
	fAuth:               "Auth",
	fAuthEndpoint:       "Auth-Endpoint",
	fAuthDocs:           "Auth-Docs",
	fScopes:             "Scopes",
	fRateLimit:          "Rate-Limit",
	fDescription:        "Description",
	fOpenAPI:            "OpenAPI",
	fParam:              "Param",
	fSessionEndpoint:    "Session-Endpoint",
	fCapabilities:       "Capabilities",
	fAgentDeclaration:   "Agent-Declaration",
	fProvenRateLimit:    "Proven-Rate-Limit",
	fProvenCapabilities: "Proven-Capabilities",
	fSite:               "Site",
	fURL:                "URL",
	fContact:            "Contact",
	fFlow:               "Flow",
	fFlowDescription:    "Flow-Description",
	fSessionTTL:         "Session-TTL",
	fAudit:              "Audit",
	fAuditEndpoint:      "Audit-Endpoint",
}

func (f field) String() string {
	if f == fUnknown || f >= fieldCount {
		return "unknown field"
	}
	return fieldNames[f]
}

// lookupField maps a key to its field. Keys are case-insensitive in both
// grammars (draft-car 2.2 follows robots.txt; v0.1.0 "Format Rules" 3), but
// only in ASCII: strings.EqualFold would also let "ſite" (U+017F) or the
// Kelvin sign stand for "s" and "k", which no other parser would accept.
func lookupField(key string) field {
	for f := fUnknown + 1; f < fieldCount; f++ {
		if asciiEqualFold(fieldNames[f], key) {
			return f
		}
	}
	return fUnknown
}

// asciiEqualFold reports whether a and b are equal under ASCII case folding.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// fieldSet records which single-valued fields a scope has already seen.
type fieldSet uint64

func (s fieldSet) has(f field) bool { return s&(1<<f) != 0 }
func (s *fieldSet) add(f field)     { *s |= 1 << f }
