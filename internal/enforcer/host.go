package enforcer

import (
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/authority"
)

// host is the stage that answers 421 to an agent's request naming a host
// the site does not list (Config.Hosts).
func (e *Enforcer) host(s *scope) bool {
	if e.hosts == nil || s.limitOnly {
		return true
	}
	if err := e.hosts.Check(s.r); err != nil {
		s.Outcome, s.Err = enforce.DenyHost, err
		return false
	}
	return true
}

// CheckHosts reports every entry of Config.Hosts that is not a host or
// host:port.
func CheckHosts(entries []string) error {
	_, err := authority.New(entries)
	return err
}
