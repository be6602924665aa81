package refusal

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
)

func TestReason(t *testing.T) {
	wrapped := fmt.Errorf("reading the target: %w", policy.ErrDotSegment)
	for _, tt := range []struct {
		name string
		d    enforce.Decision
		want string
	}{
		{"allowed", enforce.Decision{Outcome: enforce.Allow}, ""},
		{"passed", enforce.Decision{Outcome: enforce.Pass}, ""},
		{"a target's fault", enforce.Decision{Outcome: enforce.DenyTarget, Err: policy.ErrEncodedSlash}, "encoded-slash"},
		{"wrapped", enforce.Decision{Outcome: enforce.DenyTarget, Err: wrapped}, "dot-segment"},
		{"a body's fault", enforce.Decision{Outcome: enforce.DenyBody, Err: &policy.TargetError{Code: "form-too-large"}}, "form-too-large"},
		{"a code added later", enforce.Decision{Outcome: enforce.DenyTarget, Err: &policy.TargetError{Code: "bad-escape"}}, "bad-escape"},
		{"report-only", enforce.Decision{Outcome: enforce.DenyTarget, Err: policy.ErrBackslash, ReportOnly: true}, "backslash"},
		{"no TargetError", enforce.Decision{Outcome: enforce.DenyBody, Err: errors.New("the request body is larger than the capability's body limit")}, Other},
		{"no error", enforce.Decision{Outcome: enforce.DenyTarget}, Other},
		{"a code that is not a token", enforce.Decision{Outcome: enforce.DenyTarget, Err: &policy.TargetError{Code: "/admin/x"}}, Other},
		{"a long code", enforce.Decision{Outcome: enforce.DenyTarget, Err: &policy.TargetError{Code: strings.Repeat("a", maxCode+1)}}, Other},
		{"an empty code", enforce.Decision{Outcome: enforce.DenyTarget, Err: &policy.TargetError{}}, Other},
		{"a path rule", enforce.Decision{Outcome: enforce.DenyPath, Rule: "Disallow: /admin/"}, "deny-path"},
		{"a host", enforce.Decision{Outcome: enforce.DenyHost, Err: errors.New("misdirected")}, "deny-host"},
		{"a TargetError on another outcome", enforce.Decision{Outcome: enforce.DenyAuth, Err: policy.ErrNUL}, "deny-auth"},
		{"the store", enforce.Decision{Outcome: enforce.StoreError}, "store-error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reason(&tt.d); got != tt.want {
				t.Errorf("Reason = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReasonBounded: whatever outcome and error a Decision holds, the
// reason is a token of at most maxCode bytes, or an outcome's name.
func TestReasonBounded(t *testing.T) {
	for o := enforce.Outcome(0); o < 64; o++ {
		for _, err := range []error{nil, errors.New("x"), &policy.TargetError{Code: "Dot Segment"}, &policy.TargetError{Code: "ok-1"}} {
			r := Reason(&enforce.Decision{Outcome: o, Err: err})
			if len(r) > maxCode || (r != "" && !isToken(r)) {
				t.Errorf("%s, %v: reason %q", o, err, r)
			}
		}
	}
}
