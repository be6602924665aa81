// Package agenturi renders the documents of draft-narvaneni-agent-uri-03:
// agent descriptors (section 7, media type application/agent+json) and the
// /.well-known/agents.json registry that maps agent names to descriptor URLs
// (section 5).
//
// A site publishes the agents of config.Site.PublishedAgents: its
// HostedAgents, or the site itself as one agent whose skills are its
// capabilities (config.Site.PublishedAgents).
//
// The renderers are pure: the same input yields the same bytes, field order
// follows the draft's Appendix A, and only what the declaration fills is
// rendered, except the members the descriptor schema requires (name,
// version, skills and each skill's id, name and description).
package agenturi
