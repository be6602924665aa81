package verifier

import (
	"context"
	"net/http"

	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/verify"
)

// purposeOf is the purpose the operator of the agent named name (whose
// claim is c, if any) declares: its Signature Agent Card's
// (Verification.Card), else the operator data's; "" when neither says.
func (v *Verifier) purposeOf(c *claim, name string) string {
	if c != nil && c.card != "" {
		if card, ok := v.cards.card(c.card); ok && card.Purpose != "" {
			return card.Purpose
		}
	}
	if p := policy.PurposeOf(name); p != policy.PurposeUnknown {
		return p.String()
	}
	return ""
}

// Identify proves a signed request by any trusted key directory, whatever
// its User-Agent claims: the Identity names the agent the directory
// belongs to (Agent, "" for a directory the site trusts for agents it
// does not declare). It answers an error wrapping webbotauth's
// ErrNoSignature when the request offers no Web Bot Auth signature, and
// ErrFailed or ErrUnavailable as Verify does.
func (v *Verifier) Identify(ctx context.Context, r *http.Request, authority string, record bool) (verify.Identity, error) {
	if v.sig.dirs == nil || !offersSignature(r) {
		return verify.Identity{}, errNoSignature
	}
	agent, keyID, err := v.sig.verifyAny(ctx, r, v.sig.authorityOf(authority), record)
	if err != nil {
		return verify.Identity{}, err
	}
	id := verify.Identity{Method: verify.Signature, Source: agent, KeyID: keyID, Agent: v.sig.trusted[agent]}
	if id.Agent != "" {
		id.Purpose = v.purposeOf(v.claim(id.Agent), id.Agent)
	}
	return id, nil
}
