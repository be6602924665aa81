package verifier

import (
	"context"
	"net/http"
	"net/netip"
	"strings"

	"github.com/agentready/agentready/config"
)

// Proof sources (docs/design.md, "Verified agents"). Each kind is a
// provider (signature.go, ranges.go, rdns.go) that binds the names a claim
// gives it, its policy's Verification else the known-agent data's, into
// sources; Verify asks a claim's sources in the providers' order, and
// decide (precedence.go) says which answer wins.

// provider is one kind of proof source, for the whole Verifier.
type provider interface {
	method() string                             // its config.Verification.Methods value
	field() string                              // its config.Verification field, for errors
	configured(v *config.Verification) []string // what v names for it (nil: the known-agent data's)
	// bind returns the sources that prove the claim to agent by names
	// (none when they give none) and every problem of names, each
	// prefixed with at. users is how many agents use a name: a name
	// several use proves their operator, not which of them sent a request.
	bind(agent string, names []string, at string, users func(string) int) ([]source, []error)
	// ready builds what the bound sources share once every claim is
	// bound, and reports what they lack.
	ready() error
	// refreshers are what the bound sources fetch.
	refreshers() []refresher
}

// refresher is what a source fetches: Load fetches it once, Run keeps it
// fresh until ctx is done; never on the request path.
type refresher interface {
	Load(ctx context.Context) error
	Run(ctx context.Context)
}

// source is a provider's binding to one claim.
type source interface {
	check(ctx context.Context, q query) answer
}

// query is the request whose claim a source checks.
type query struct {
	r         *http.Request
	client    netip.Addr // the client address, trusted proxies honoured
	authority string     // the request's host as the server sees it
	agent     string     // the claim's name
	record    bool       // a signature's nonce is recorded against replay
}

// sourceUsers counts, per method and name, the agents whose sources
// include it: every row of the known-agent data, whether the site
// declares the agent or not (Anthropic's one list is shared by its three
// agents whichever of them a site names), and the sources each declared
// policy names itself.
func sourceUsers(agents []config.AgentPolicy, ps []provider) func(method string) func(string) int {
	type key struct{ method, name string }
	users := map[key]map[string]bool{}
	add := func(method string, names []string, agent string) {
		for _, n := range names {
			k := key{method, n}
			if users[k] == nil {
				users[k] = map[string]bool{}
			}
			users[k][strings.ToLower(agent)] = true
		}
	}
	for _, p := range ps {
		for name, row := range known {
			add(p.method(), p.configured(&row.Verification), name)
		}
		for i := range agents {
			add(p.method(), p.configured(&agents[i].Verify), agents[i].Name)
		}
	}
	return func(m string) func(string) int {
		return func(n string) int { return len(users[key{m, n}]) }
	}
}
