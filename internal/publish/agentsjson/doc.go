// Package agentsjson renders the two agents.json companions of agents.txt
// from a config.Site:
//
//   - DraftCar, the JSON companion of draft-car-agents-txt-wellknown-00
//     (section 3.2), served beside the draft-car agents.txt;
//   - V010, the agents.json of the agents.txt Format Specification v0.1.0
//     (the agents-protocol JSON Schema), served beside the v0.1.0 agents.txt.
//
// Both live at /.well-known/agents.json, which the agent:// registry also
// claims (docs/design.md collision 2); choosing between them is the caller's job.
//
// The renderers are pure: the same Site yields the same bytes, nothing
// time-dependent is rendered unless the Site sets it, and field order follows
// each specification. Only what the declaration fills is rendered, except
// the members a schema requires, which are always present.
package agentsjson
