package main

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// paramsNotes say, while access.enforce_params is off, which declared
// params would start refusing calls (400) once it is on, per capability:
// the required ones, the typed ones (any type but string), those with an
// enum and those with bounds (docs/enforcement.md, "Params"). Only REST
// capabilities' params are checked, and a path param only where the
// endpoint holds its {name}: others are not listed. A param with none of
// these refuses only a name sent twice or spelt in another case, and is
// not listed.
func paramsNotes(file string, s *config.Site, lines config.Lines) []string {
	if s.Access.EnforceParams {
		return nil
	}
	var notes []string
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if resolve.Protocol(c) != config.ProtocolREST {
			continue
		}
		var would []string
		for _, p := range c.Params {
			var why []string
			if p.Required {
				why = append(why, "required")
			}
			if p.Type != "" && p.Type != config.TypeString {
				why = append(why, p.Type)
			}
			if len(p.Enum) > 0 {
				why = append(why, "enum")
			}
			if p.Min != nil {
				why = append(why, "min "+strconv.FormatFloat(*p.Min, 'g', -1, 64))
			}
			if p.Max != nil {
				why = append(why, "max "+strconv.FormatFloat(*p.Max, 'g', -1, 64))
			}
			if len(why) == 0 {
				continue
			}
			in := cmp.Or(p.In, config.InQuery)
			if in == config.InPath && !strings.Contains(c.Endpoint, "{"+p.Name+"}") {
				continue // never read: it refuses nothing
			}
			would = append(would, fmt.Sprintf("%s (%s: %s)", p.Name, in, strings.Join(why, ", ")))
		}
		if len(would) == 0 {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s:%d: note: capabilities[%d] %q: with access.enforce_params, a call not as its params declare is refused (400); these would start refusing calls: %s (try it first under serve -report-only, or as a WithShadow candidate)",
			file, lines[fmt.Sprintf("Capabilities[%d]", i)], i, c.ID, strings.Join(would, "; ")))
	}
	return notes
}
