package publish

import (
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Validate checks s against config's rules and those of every format
// (Formats), and returns nil or one *config.ValidationError holding every
// problem, sorted by field. agentready.New and Reload call it, and lint
// through them.
func Validate(s *config.Site, f config.Formats) error {
	return discovery.Validate(s, f, Formats)
}
