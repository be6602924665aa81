package agentready

// What the tests reach that users do not.

// WithClock sets the clock of the default in-memory stores, of session
// expiry, of audit timestamps and of verification, so that tests advance
// time instead of sleeping.
var WithClock = withClock

// The names of the session endpoint's audit events and the rule Explain
// gives the audit endpoint.
const (
	CapabilitySessionCreate = capabilitySessionCreate
	CapabilitySessionDelete = capabilitySessionDelete
	RuleAuditEndpoint       = ruleAuditEndpoint
)
