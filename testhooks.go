package agentready

import (
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/verifier"
)

// The end-to-end tests live in a package of their own
// (internal/testing/e2e) and read these through internal/testhooks rather
// than through exported names.
func init() {
	testhooks.Verifier = func(m any) *verifier.Verifier { return m.(*Middleware).cur.Load().ver }
	testhooks.CapabilitySessionCreate = capabilitySessionCreate
	testhooks.CapabilitySessionDelete = capabilitySessionDelete
	testhooks.RuleAuditEndpoint = ruleAuditEndpoint
}
