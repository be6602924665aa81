package policy

import (
	"fmt"

	"github.com/agentready/agentready/internal/format/pathpattern"
)

// checkPattern rejects patterns that cannot be what the site means, with
// the rules config validation applies (pathpattern.Check: robots.txt
// syntax, '$' only last, no whitespace, controls or '#', valid escapes),
// so CompileRules and Validate never disagree. The length bound is
// restated here because Match's guarantees depend on it.
func checkPattern(p string) error {
	if err := pathpattern.Check(p); err != nil {
		return err
	}
	if len(p) > MaxPathLen {
		return fmt.Errorf("pattern longer than %d bytes", MaxPathLen)
	}
	return nil
}
