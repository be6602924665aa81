package verifier

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/webbotauth"
)

// Sources are what proves an agent's claim: the Signature-Agent URLs of its
// operator's Web Bot Auth JWK Sets (origins, for key directories at the
// well-known URI), the URLs of its published IP range lists, and the
// domains its forward-confirmed reverse DNS names are in.
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

// canonicalAgent returns the Signature-Agent URL s names in the form
// requests are matched in (webbotauth.AgentURL: an origin for a key
// directory at the well-known URI, else the JWK Set URL without its
// query), refusing plain HTTP except to a loopback host when allowed.
func canonicalAgent(s string, allowHTTPLoopback bool) (string, error) {
	agent, err := webbotauth.AgentURL(s)
	if err != nil {
		return "", fmt.Errorf("%q is not an https origin or JWK Set URL: %w", s, err)
	}
	if rest, ok := strings.CutPrefix(agent, "http://"); ok && !(allowHTTPLoopback && webbotauth.IsLoopback(strings.SplitN(rest, "/", 2)[0])) {
		return "", fmt.Errorf("%q: plain http is allowed only to a loopback host, with AllowHTTPLoopback", s)
	}
	return agent, nil
}
