package verifier

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/verify"
)

// What a proof names (docs/design.md, "Grades of identity"): the agent
// when the source is the agent's own, else only its operator; and the
// purpose the agent's operator declares.

// name sets what a proof of agent's claim by source names: the agent
// when the source is its own (a key directory; a range list or domain
// only it uses, or a list prefix that names it), else only its operator
// (Agent ""), and the purpose its operator declares for the agent named.
func (v *Verifier) name(id *verify.Identity, agent, source string, own bool) {
	if !own && v.users[source] > 1 {
		return // a shared list proves the operator, not which agent
	}
	id.Agent = agent
	id.Purpose = v.purposeOf(agent)
}

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

// authorityOf is the authority a signature must have been made for: the
// request's when the site answers at it, else the site's own, so that a
// signature made for another host fails.
func (v *Verifier) authorityOf(authority string) string {
	auth := normalAuthority(authority)
	if !v.authorities[auth] {
		auth = v.authority
	}
	return auth
}

// Identify proves a signed request by any trusted key directory, whatever
// its User-Agent claims: the Identity names the agent the directory
// belongs to (Agent, "" for a directory the site trusts for agents it
// does not declare). It answers an error wrapping webbotauth's
// ErrNoSignature when the request offers no Web Bot Auth signature, and
// ErrFailed or ErrUnavailable as Verify does.
func (v *Verifier) Identify(ctx context.Context, r *http.Request, authority string, record bool) (verify.Identity, error) {
	if v.sig == nil || !offersSignature(r) {
		return verify.Identity{}, errNoSignature
	}
	agent, keyID, err := v.sig.verifyAny(ctx, r, v.authorityOf(authority), v.dirs, record)
	if errors.Is(err, errNoSignature) {
		return verify.Identity{}, err
	}
	if err != nil {
		return verify.Identity{}, err
	}
	id := verify.Identity{Method: verify.Signature, Source: agent, KeyID: keyID, Agent: v.dirs[agent]}
	if id.Agent != "" {
		id.Purpose = v.purposeOf(id.Agent)
	}
	return id, nil
}

// sourceUsers counts, per range list URL and reverse DNS domain, the
// agents whose sources include it: every row of the known-agent data,
// whether the site declares the agent or not (Anthropic's one list is
// shared by its three agents whichever of them a site names), and the
// sources each declared policy names itself.
func sourceUsers(agents []config.AgentPolicy) map[string]int {
	users := map[string]map[string]bool{}
	add := func(source, agent string) {
		if users[source] == nil {
			users[source] = map[string]bool{}
		}
		users[source][strings.ToLower(agent)] = true
	}
	for name, row := range known {
		for _, u := range row.IPRanges {
			add(u, name)
		}
		for _, d := range row.ReverseDNS {
			add(d, name)
		}
	}
	for i := range agents {
		for _, u := range agents[i].Verify.IPRanges {
			add(u, agents[i].Name)
		}
		for _, d := range agents[i].Verify.ReverseDNS {
			add(d, agents[i].Name)
		}
	}
	n := make(map[string]int, len(users))
	for s, a := range users {
		n[s] = len(a)
	}
	return n
}
