package fields

import (
	"net/http"
	"testing"

	"github.com/agentready/agentready/enforce"
)

// TestDecisionFieldAsHTTPSFV holds appendDecision to httpsfv: for every
// decision it renders, the bytes are httpsfv's; for the others (non-ASCII,
// a name that is no Token) it declines and httpsfv renders them.
func TestDecisionFieldAsHTTPSFV(t *testing.T) {
	strs := []string{"", "*", "GPTBot", `Disallow: /a"b\\c`, "Allow: /api/*", "café", "tab\there", "\x7f", "~!@#$%^&*()"}
	toks := []string{"known", "deny-path", "a:b/c", "*x", "", "9lives", "has space", "ü"}
	for _, policyName := range strs {
		for _, rule := range strs {
			for _, capability := range strs {
				for _, tok := range toks {
					d := enforce.Decision{Agent: policyName, Rule: rule, Capability: capability, Grade: tok, Outcome: enforce.DenyPath,
						Class: enforce.Class{Kind: "known", Purpose: "training-crawler"}}
					got, ok := appendDecision(nil, &d)
					want, err := marshalDecision(&d)
					switch {
					case ok && (err != nil || string(got) != want):
						t.Errorf("%+v: appendDecision %q, httpsfv %q (%v)", d, got, want, err)
					case !ok && err == nil && isSFToken(tok) && ascii(policyName) && ascii(rule) && ascii(capability):
						t.Errorf("%+v: appendDecision declined what httpsfv renders as %q", d, want)
					}
					h := http.Header{}
					SetDecision(h, &d)
					if v := h[enforce.HeaderDecision]; err == nil && (len(v) != 1 || v[0] != want) || err != nil && len(v) != 0 {
						t.Errorf("%+v: SetDecision %q, want %q (%v)", d, v, want, err)
					}
				}
			}
		}
	}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
