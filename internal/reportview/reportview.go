// Package reportview is the data model of package report's JSON
// (report.json): what a report shows, merged from its slots. The report
// fills it; tests decode the JSON into it. docs/operations.md lists its
// members for the sites that read the JSON.
package reportview

import "time"

// Snapshot is what the report shows: the counts of the window, merged from
// its slots. Every table's rows, its "other" row included, sum to the
// table's total: Agents to Total; Refusals, Rules and Paths to Total's
// Denied and RateLimited (every refusal has a reason, a rule and a path);
// Reasons to Failures; Capabilities to the requests that addressed a
// capability, Tools to the tools/call requests (both subsets of Total).
type Snapshot struct {
	// From and To bound the window: From is the start of the oldest slot
	// counted, or the report's start (Started) when that is later: the
	// window never claims time before the report existed. To is the time
	// the snapshot was taken.
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Started time.Time `json:"started"`
	// Window is the report's Options.Window as kept (60 slots of Resolution), and
	// Resolution a slot's span: counts leave the report a slot at a time.
	Window     time.Duration `json:"window_ns"`
	Resolution time.Duration `json:"resolution_ns"`

	// Total is every agent request (Name "total"): every decision but the
	// Pass of a browser or a probe.
	Total Row `json:"total"`
	// Passed counts the browsers and infrastructure probes let through
	// untouched (a Pass that is not a link preview's): not agents, so in
	// no table.
	Passed int64 `json:"passed"`
	// Degraded counts the decisions the rate-limit store answered by its
	// failure policy.
	Degraded int64 `json:"degraded"`
	// Failures counts the requests whose claim was checked and not proven
	// (a verification failure, Identity.Reason set), whatever became of
	// them.
	Failures int64 `json:"verification_failures"`
	// SessionsOpened counts the v0.1.0 sessions created, ArtifactsSealed
	// the audit artifacts sealed.
	SessionsOpened  int64 `json:"sessions_opened"`
	ArtifactsSealed int64 `json:"artifacts_sealed"`

	// Agents are the agent rows by name, policy, grade and purpose, most
	// requests first.
	Agents []Row `json:"agents"`
	// Refusals are the refusals by reason: a refused target's or body's
	// fault (DenyTarget, DenyBody: "dot-segment", "encoded-slash", ...;
	// "other" when its error names none), else the outcome's name
	// ("deny-path", "deny-rate", "deny-host", ...), as package metrics'
	// agentready_refusals_total counts them.
	Refusals []Row `json:"refusals_by_reason"`
	// Rules are the rules that refused most (Decision.Rule, or the
	// outcome's name when no rule applied), a row per rule, policy, grade
	// and rate limit: two policies refused by the same text
	// ("Rate-Limit: 5/minute") are two rows. Paths are the paths refused
	// most.
	Rules []Row `json:"rules"`
	Paths []Row `json:"paths"`
	// Reasons are the verification failures by reason.
	Reasons []Row `json:"verification_failures_by_reason"`
	// Tools are the MCP tools/call requests by declared tool
	// (CAPABILITY/TOOL), most first: a subset of Total (docs/mcp.md).
	Tools []Row `json:"tools"`
	// Capabilities are the agent requests by the capability they
	// addressed (Decision.Capability), most first: a subset of Total.
	Capabilities []Row `json:"capabilities"`

	// Series is the window slot by slot, oldest first, from the slot From
	// falls in to the current one (a slot of Resolution each: a minute at
	// the default window of an hour).
	Series []Point `json:"series"`

	// LastReload is the last reload of the declaration the report was
	// told of (agentready serve tells it), nil when none was.
	LastReload *Reload `json:"last_reload,omitempty"`
	// Upstream is the upstream's health over the window, nil when the
	// report was never told of an upstream (only agentready serve tells
	// it).
	Upstream *Upstream `json:"upstream,omitempty"`
}

// Point is one slot of the series: its start and its agent requests by
// what became of them (Requests is Allowed + Denied + RateLimited), and
// the browsers and probes passed.
type Point struct {
	Start       time.Time `json:"start"`
	Requests    int64     `json:"requests"`
	Allowed     int64     `json:"allowed"`
	Denied      int64     `json:"denied"`
	RateLimited int64     `json:"rate_limited"`
	Passed      int64     `json:"passed"`
}

// Reload is the last reload: when, whether the file was taken (Error is
// why not: the running declaration kept serving), when one last
// succeeded, and the reloads of the window by result.
type Reload struct {
	At    time.Time `json:"at"`
	OK    bool      `json:"ok"`
	Error string    `json:"error,omitempty"`
	// LastOK is the time of the last reload taken, zero when none was.
	LastOK time.Time `json:"last_ok,omitzero"`
	// Succeeded and Failed count the window's reloads.
	Succeeded int64 `json:"succeeded"`
	Failed    int64 `json:"failed"`
}

// Upstream is what the upstream answered over the window: Requests sent
// to it, of which Errors got no answer (refused, reset, timed out: the
// client had a 502) and ServerErrors an answer of 5xx. LastError is the
// last failure's message and LastErrorAt its time, ever (not only in the
// window).
type Upstream struct {
	Requests     int64     `json:"requests"`
	Errors       int64     `json:"errors"`
	ServerErrors int64     `json:"server_errors"`
	LastError    string    `json:"last_error,omitempty"`
	LastErrorAt  time.Time `json:"last_error_at,omitzero"`
}

// Row is one row of a table: a name (an agent's, a rule, a path, a
// reason) and its requests by what became of them. Requests is Allowed +
// Denied + RateLimited. A row with Other set counts every name the table
// does not list, and those a slot could not keep (it keeps 4*Rows names).
type Row struct {
	Name string `json:"name"`
	// Policy, Grade and Purpose are an agent row's: the agent policy that
	// applied (Decision.Agent, "" when none), how much of who it is was
	// proven, and its purpose. A rule's row has Policy and Grade too, and
	// Limit: the name of the rate limit that refused (Decision.Limit,
	// "agent/GPTBot", "site"), "" for a rule of another kind.
	Policy  string `json:"policy,omitempty"`
	Grade   string `json:"grade,omitempty"`
	Purpose string `json:"purpose,omitempty"`
	Limit   string `json:"limit,omitempty"`
	Other   bool   `json:"other,omitempty"`

	Requests    int64 `json:"requests"`
	Allowed     int64 `json:"allowed"`
	Denied      int64 `json:"denied"`
	RateLimited int64 `json:"rate_limited"`
	// ReportOnly counts the denials of Denied and RateLimited that
	// report-only mode did not apply: those requests were served.
	ReportOnly int64 `json:"report_only"`
}
