package agentready

import (
	"fmt"
	"time"

	"github.com/agentready/agentready/config"
)

// An Option changes how a Middleware publishes or enforces the declaration.
// Options carry behaviour; the declaration itself is config.Site.
type Option func(*settings) error

// settings collects what the options say. Zero values are the defaults.
type settings struct {
	formats        config.Formats
	descriptorPath string
	maxAge         map[config.Document]time.Duration
	lastModified   time.Time
}

// WithDialect selects the agents.txt grammar served at
// /.well-known/agents.txt: config.DialectDraftCar (the default) or
// config.DialectV010. /.well-known/agents.json follows it (see
// WithAgentsJSON).
func WithDialect(d config.Dialect) Option {
	return func(s *settings) error {
		if d != config.DialectDraftCar && d != config.DialectV010 {
			return fmt.Errorf("WithDialect: unknown dialect %v", d)
		}
		s.formats.Dialect = d
		return nil
	}
}

// WithAgentsJSON selects what /.well-known/agents.json holds: the companion
// of the served agents.txt grammar (config.AgentsJSONCompanion, the default)
// or the agent:// registry (config.AgentsJSONRegistry). Descriptors are
// served either way.
func WithAgentsJSON(m config.AgentsJSONMode) Option {
	return func(s *settings) error {
		if m != config.AgentsJSONCompanion && m != config.AgentsJSONRegistry {
			return fmt.Errorf("WithAgentsJSON: unknown mode %d", m)
		}
		s.formats.AgentsJSON = m
		return nil
	}
}

// WithoutDocuments stops publishing the given documents (and stops
// validating what only they require), e.g.
// WithoutDocuments(config.DocAWP|config.DocDescriptors).
func WithoutDocuments(d config.Document) Option {
	return func(s *settings) error {
		if d&^config.AllDocuments != 0 {
			return fmt.Errorf("WithoutDocuments: unknown document bits %#x", uint8(d&^config.AllDocuments))
		}
		s.formats.Disabled |= d
		return nil
	}
}

// WithDevelopment allows plain-http URLs in the declaration, for a site run
// on a development host. Without it, http is accepted only for localhost,
// 127.0.0.0/8 and [::1] (draft-car 2.1: HTTPS in production).
func WithDevelopment() Option {
	return func(s *settings) error {
		s.formats.AllowHTTP = true
		return nil
	}
}

// WithDescriptorPath sets the path template of agent:// descriptors; it must
// start with "/" and contain "{name}". Default "/agents/{name}/agent.json".
func WithDescriptorPath(tmpl string) Option {
	return func(s *settings) error {
		s.descriptorPath = tmpl
		return nil
	}
}

// WithMaxAge sets the Cache-Control max-age of the given documents. The
// defaults are each draft's: 300 s for agents.txt and agents.json (draft-car
// 5.1), 86400 s for agents.md (agents.md 1), 300 s for agent.json and
// descriptors.
func WithMaxAge(d config.Document, maxAge time.Duration) Option {
	return func(s *settings) error {
		if maxAge < 0 {
			return fmt.Errorf("WithMaxAge: negative max-age %v", maxAge)
		}
		if s.maxAge == nil {
			s.maxAge = map[config.Document]time.Duration{}
		}
		for bit := config.Document(1); bit <= config.DocDescriptors && bit != 0; bit <<= 1 {
			if d&bit != 0 {
				s.maxAge[bit] = maxAge.Truncate(time.Second)
			}
		}
		return nil
	}
}

// WithLastModified sets the Last-Modified time of every document. Default:
// Site.GeneratedAt when set, else the time New was called. Set it (for
// example to your build time) so that replicas agree; ETags agree anyway,
// since they hash the bytes.
func WithLastModified(t time.Time) Option {
	return func(s *settings) error {
		s.lastModified = t
		return nil
	}
}
