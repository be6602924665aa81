// Package config is the declaration a site writes once, in Go: its identity,
// the capabilities it sanctions for agents, the paths agents may use, the
// per-agent policies, rate limits, sessions and audit, and the extra fields
// each discovery format carries (agents.md, AWP agent.json, agent://
// descriptors).
//
// Everything here is plain data whose zero values are sensible defaults, and
// each field says which formats it is rendered into. Validate checks a Site
// against the rules of every format being published and reports every
// problem at once, each with its field path.
package config
