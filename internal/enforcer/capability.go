package enforcer

import "github.com/agentready/agentready/enforce"

// capability is the stage of capability scope: the capability the
// request addresses (access.go) or a route binding names becomes the
// decision's, and an agent policy that does not permit it is refused
// (DenyCapability).
func (e *Enforcer) capability(s *scope) bool {
	if s.ci < 0 {
		return true
	}
	p := e.p
	s.Capability = p.Capabilities[s.ci].ID
	if s.ai >= 0 && !p.Agents[s.ai].Permitted[s.ci] {
		s.Outcome, s.Rule = enforce.DenyCapability, p.Agents[s.ai].Rule
		return false
	}
	return true
}
