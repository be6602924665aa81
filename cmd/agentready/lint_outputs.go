package main

import (
	"fmt"
	"slices"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// outputNotes say which declared outputs have a type that is not AWP's
// (section 8): the documents publish it as a string, and a gateway tool
// that calls the capability gets no output schema (docs/gateway.md),
// since one from it would refuse every answer.
func outputNotes(file string, s *config.Site, lines config.Lines) []string {
	var notes []string
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		var names []string
		for name := range c.Outputs {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if t := c.Outputs[name]; !resolve.AWPType(t) {
				notes = append(notes, fmt.Sprintf("%s:%d: note: capabilities[%d].outputs.%s: %q is not an AWP type (string, integer, float, boolean, ISO8601, url, enum[a, b], array[T], object[entity]): it is published as a string, and a gateway tool calling %q gets no output schema",
					file, lines[fmt.Sprintf("Capabilities[%d]", i)], i, name, t, c.ID))
			}
		}
	}
	return notes
}
