// Package awp renders the Agent Web Protocol v0.2 agent.json (AWP 5-13)
// from a config.Site: the site's capabilities become AWP actions, and the
// AWP-only parts of the declaration (protocols, feature flags, entities,
// error recoveries, hints, status) are rendered beside them.
//
// AgentJSON is pure: the same Site yields the same bytes, field order follows
// the specification's tables, and only what the declaration fills is
// rendered, except the members AWP requires (awp_version, domain, intent,
// actions, and each action's id, description, auth_required, inputs and
// outputs), which are always present.
package awp
