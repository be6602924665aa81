// Package enforcer is agentready's per-request enforcement: a request's
// scope (scope.go) goes through an ordered chain of stages (chain.go), one
// file and one concern each, from classifying the client to the rate
// limits and the session check, and leaves through one exit that carries
// the decision out (an RFC 9457 problem+json denial names the rule) and
// hands it to the recording layer. docs/design.md ("Enforcement") has the
// shape, "Semantics that must be exactly right" the details.
package enforcer
