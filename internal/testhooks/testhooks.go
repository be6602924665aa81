// Package testhooks is how the end-to-end tests (internal/testing/e2e)
// reach what package agentready keeps from its users: the tests of
// another package cannot read the root's export_test.go, and exporting
// these names would grow the surface for tests alone. Package agentready
// sets the hooks in its init; only tests read them.
package testhooks

import "github.com/agentready/agentready/internal/verifier"

// Verifier returns the current declaration's verifier of m, an
// *agentready.Middleware, for tests that load it or read its sources'
// state.
var Verifier func(m any) *verifier.Verifier

// The names of the session endpoint's audit events, and the rule Explain
// gives the audit endpoint.
var (
	CapabilitySessionCreate string
	CapabilitySessionDelete string
	RuleAuditEndpoint       string
)
