package enforcer

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
)

// TestClassNamesArePublished: every kind and purpose the classifier returns
// reaches the Decision as one of enforce's constants.
func TestClassNamesArePublished(t *testing.T) {
	kinds := map[policy.Kind]string{policy.Browser: enforce.KindBrowser, policy.Declared: enforce.KindDeclared,
		policy.Known: enforce.KindKnown, policy.Generic: enforce.KindGeneric, policy.Unknown: enforce.KindUnknown}
	purposes := map[policy.Purpose]string{policy.PurposeUnknown: enforce.PurposeUnknown, policy.TrainingCrawler: enforce.PurposeTrainingCrawler,
		policy.SearchCrawler: enforce.PurposeSearchCrawler, policy.UserAgent: enforce.PurposeUserAgent}
	for k, want := range kinds {
		for p, wantP := range purposes {
			var d scope
			d.setClass(policy.Class{Kind: k, Name: "x", Purpose: p})
			if d.Class != (enforce.Class{Kind: want, Name: "x", Purpose: wantP}) {
				t.Errorf("setClass(%v, %v) = %+v", k, p, d.Class)
			}
		}
	}
	// A kind or purpose added to the classifier needs its constant here.
	if s := policy.Kind(len(kinds)).String(); !strings.HasPrefix(s, "Kind(") {
		t.Errorf("kind %q has no enforce constant", s)
	}
	if s := policy.Purpose(len(purposes)).String(); s != enforce.PurposeUnknown {
		t.Errorf("purpose %q has no enforce constant", s)
	}
}
