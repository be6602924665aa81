package verifier

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/webbotauth"
)

// Sources are what proves an agent's claim: the origins of its operator's
// Web Bot Auth key directories, the URLs of its published IP range lists,
// and the domains its forward-confirmed reverse DNS names are in.
type Sources struct {
	SignatureAgents []string
	IPRanges        []string
	ReverseDNS      []string
}

// sourcesFor returns the sources of a verified-only policy: those its
// Verification names, each kind defaulting to the known-agent data's for
// its Name.
func sourcesFor(a *config.AgentPolicy) Sources {
	k, _ := Known(a.Name)
	s := Sources{SignatureAgents: a.Verify.SignatureAgents, IPRanges: a.Verify.IPRanges, ReverseDNS: a.Verify.ReverseDNS}
	if s.SignatureAgents == nil {
		s.SignatureAgents = k.SignatureAgents
	}
	if s.IPRanges == nil {
		s.IPRanges = k.IPRanges
	}
	if s.ReverseDNS == nil {
		s.ReverseDNS = k.ReverseDNS
	}
	return s
}

// canonicalOrigin returns the origin s names in the form a Signature-Agent
// is compared in (webbotauth.NormalizeOrigin: the key directories use the
// same), refusing plain HTTP except to a loopback host when allowed.
func canonicalOrigin(s string, allowHTTPLoopback bool) (string, error) {
	origin, err := webbotauth.NormalizeOrigin(s)
	if err != nil {
		return "", fmt.Errorf("%q is not an origin (https://host[:port]): %w", s, err)
	}
	if rest, ok := strings.CutPrefix(origin, "http://"); ok && !(allowHTTPLoopback && webbotauth.IsLoopback(rest)) {
		return "", fmt.Errorf("%q: plain http is allowed only to a loopback host, with AllowHTTPLoopback", s)
	}
	return origin, nil
}
