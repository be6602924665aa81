package cards

import "github.com/agentready/agentready/config"

// A2ACard is A2ACardWith unsigned, in the default version.
func A2ACard(s *config.Site) ([]byte, error) { return A2ACardWith(s, A2AOptions{}) }
