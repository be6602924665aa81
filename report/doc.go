// Package report keeps a live, bounded view of what agents do on this
// replica: the agents seen, by name, grade and purpose, with
// their allowed, denied and rate-limited requests; refusals by reason (a
// refused target's fault, else the outcome); the rules and paths that
// refused most (a row per rule, policy, grade and rate limit: never two
// policies merged by one limit's text); verification failures by reason;
// capabilities and MCP tools used; sessions opened and audit artifacts
// sealed; the requests slot by slot (a chart on the page); over a window
// the page states, which never starts before the report was made. A proxy
// in front of an upstream (agentready serve) also tells it its reloads
// (Reloaded) and the upstream's answers (Upstream). It is served as an
// HTML page (server-rendered, no script, no external asset; ?refresh=N
// reloads it by a meta element) and as JSON (docs/operations.md lists its
// members).
//
// Wire it to the middleware and mount it where the site chooses:
//
//	rep := report.New(report.Options{})
//	m, err := agentready.New(site, agentready.WithReport(rep)) // decisions, sessions and audit artifacts
//	mux.Handle("/internal/agents/", http.StripPrefix("/internal/agents", rep))
//
// The page names the agents that come and what they were refused: protect
// it as any admin page (agentready serve -report serves it on a listener
// of its own). Report.Observe alone is a decision hook
// (agentready.WithOnDecision) for a site that feeds decisions itself.
//
// # What is counted
//
// Every decision is one request, counted once: Allow is allowed, DenyRate
// rate-limited, every other refusal (StoreError included) denied. A Pass
// is a browser's or an infrastructure probe's, counted in the JSON's "passed" total
// and in no table, except a link preview's (enforce.RuleLinkPreview), an
// agent the site serves as a browser: an agent row's allowed request. A
// report-only denial (Decision.ReportOnly) counts as the denial it would
// have been, and in the ReportOnly column: the request was served.
//
// # Bounds
//
// The window is kept in 60 slots of Window/60. In each slot every table
// keeps at most 4*Rows distinct names; a name first seen when its table is
// full is counted in that slot's "other". So memory is bounded by Rows,
// whatever the distinct names, paths and rules (request data, hostile), a
// name is cut to 256 bytes, and every count stays exact: each request is
// in exactly one row or "other" of each table it belongs to, and a
// table's rows sum to its total. A snapshot lists the Rows names with the
// most requests and adds the rest to "other".
//
// The report is one replica's: each replica counts what it served. The
// fleet's view is Prometheus's (package metrics, docs/operations.md).
package report
