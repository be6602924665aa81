// Package refusal names why a decision refused a request, in one bounded
// token, for the metrics and the report to count refusals by: the fault a
// refused target has (policy.TargetError's Code), else the outcome.
package refusal

import (
	"errors"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
)

// Other is the reason of a refused target or body whose error names no
// fault (not a policy.TargetError, or one whose Code is not a token).
const Other = "other"

// maxCode is the longest Code counted under its own name: codes are
// agentready's constants ("raw-path-mismatch"), never request data, and
// the bound keeps a hook's own Decisions from adding long names.
const maxCode = 32

// Reason is why d refused its request, "" when it did not (Pass, Allow).
// For DenyTarget and DenyBody it is the Code of the policy.TargetError
// d.Err wraps ("dot-segment", "encoded-slash", "bad-override", ...: a code
// added later counts under its own name), Other when there is none; for
// every other refusal (deny-path, deny-host, deny-rate, store-error, ...)
// the outcome's name. A report-only denial has the reason of the denial it
// would have been.
func Reason(d *enforce.Decision) string {
	switch d.Outcome {
	case enforce.Pass, enforce.Allow:
		return ""
	case enforce.DenyTarget, enforce.DenyBody:
		if te, ok := errors.AsType[*policy.TargetError](d.Err); ok && isToken(te.Code) {
			return te.Code
		}
		return Other
	}
	return d.Outcome.String()
}

// isToken reports whether code is a name that may be counted: 1 to maxCode
// bytes of lower-case letters, digits and '-'.
func isToken(code string) bool {
	if code == "" || len(code) > maxCode {
		return false
	}
	for i := 0; i < len(code); i++ {
		if c := code[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
