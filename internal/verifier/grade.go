package verifier

import (
	"context"
	"net/http"
	"strings"

	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/verify"
)

// purposeOf is the purpose agent's operator declares: its Signature
// Agent Card's (Verification.Card), else the operator data's; "" when
// neither says.
func (v *Verifier) purposeOf(agent string) string {
	key, ok := v.cardOf[agent] // as spelled: the policy's name
	if !ok {
		key, ok = v.cardOf[strings.ToLower(agent)]
	}
	if ok {
		if c, ok := v.cards.card(key); ok && c.Purpose != "" {
			return c.Purpose
		}
	}
	if p := policy.PurposeOf(agent); p != policy.PurposeUnknown {
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
		id.Purpose = v.purposeOf(id.Agent)
	}
	return id, nil
}
