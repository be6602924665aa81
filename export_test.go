package agentready

import "github.com/agentready/agentready/internal/verifier"

// What the tests reach that users do not.

// The names of the session endpoint's audit events and the rule Explain
// gives the audit endpoint.
const (
	CapabilitySessionCreate = capabilitySessionCreate
	CapabilitySessionDelete = capabilitySessionDelete
	RuleAuditEndpoint       = ruleAuditEndpoint
)

// Verifier returns the current declaration's verifier, for tests that load
// it or read its sources' state.
func (m *Middleware) Verifier() *verifier.Verifier { return m.cur.Load().ver }
