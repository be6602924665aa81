package agentstxt

import (
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentsjson"
	"github.com/agentready/agentready/internal/publish/agentsmd"
	"github.com/agentready/agentready/internal/publish/agenturi"
	"github.com/agentready/agentready/internal/publish/awp"
	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// validateAll is publish.Validate, which this package's tests cannot
// import (publish imports it): config's rules and every format's.
func validateAll(s *config.Site, f config.Formats) error {
	return discovery.Validate(s, f, []discovery.Format{Format, agentsjson.Format, agentsmd.Format, awp.Format, agenturi.Format, cards.Format})
}
