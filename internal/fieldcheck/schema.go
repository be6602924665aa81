package fieldcheck

import (
	"strings"

	"github.com/agentready/agentready/internal/schemagen"
)

// The JSON Schema forms of the checks here, for the declaration file's
// schema (publish.FileSchema and the formats' parts). Patterns are written
// for both ECMA-262 and RE2.
const (
	// LoopbackHostPattern is localhost, 127.0.0.0/8 or [::1]
	// (httpsyntax.IsLoopbackHost), where plain http is accepted.
	LoopbackHostPattern = `(?:[lL][oO][cC][aA][lL][hH][oO][sS][tT]|127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}|\[(?:0{0,4}:){2,7}0{0,3}1\])(?:[:/?#]|$)`
	// WebURLPattern is an https URL, or http on a loopback host (WebURL's
	// WebSchemes; a file cannot set Formats.AllowHTTP); "" is unset.
	WebURLPattern = `^$|^[hH][tT][tT][pP][sS]://[^/?#]|^[hH][tT][tT][pP]://` + LoopbackHostPattern
	// SemVerPattern is SemVer's.
	SemVerPattern = `^$|^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-((?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`
)

// CredentialRef refers to the def of URLs holding a credential
// (publish's credentialURL), which each URL field's "not" names.
var CredentialRef = map[string]any{"$ref": "#/$defs/CredentialURL"}

// WebURLSchema is an https URL field's keywords (WebURL).
func WebURLSchema() map[string]any {
	return map[string]any{"pattern": WebURLPattern, "not": CredentialRef}
}

// MethodsSchema is the five methods of AWP 9 and the v0.1.0 agents.json,
// in any case (endpoint.Method upper-cases them), or unset (GET).
func MethodsSchema() map[string]any {
	var alts []string
	for _, m := range AWPMethods {
		alts = append(alts, schemagen.AnyCase(strings.ToLower(m)))
	}
	return map[string]any{"pattern": "^$|^(?:" + strings.Join(alts, "|") + ")$"}
}

// The scopes of config.Site.ImplicitAccess (agentready.ImplicitAllAgents
// and ImplicitAIAgents), which config checks and the schema lists.
const (
	ImplicitAll = "all-agents"
	ImplicitAI  = "ai-agents"
)
