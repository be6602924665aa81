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
// Reasons to Failures.
type Snapshot struct {
	// From and To bound the window: From is the start of the oldest slot
	// counted, To the time the snapshot was taken.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
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
	// outcome's name when no rule applied), Paths the paths refused most.
	Rules []Row `json:"rules"`
	Paths []Row `json:"paths"`
	// Reasons are the verification failures by reason.
	Reasons []Row `json:"verification_failures_by_reason"`
	// Tools are the MCP tools/call requests by declared tool
	// (CAPABILITY/TOOL), most first: a subset of Total (docs/mcp.md).
	Tools []Row `json:"tools"`
}

// Row is one row of a table: a name (an agent's, a rule, a path, a
// reason) and its requests by what became of them. Requests is Allowed +
// Denied + RateLimited. A row with Other set counts every name the table
// does not list, and those a slot could not keep (it keeps 4*Rows names).
type Row struct {
	Name string `json:"name"`
	// Policy, Grade and Purpose are an agent row's: the agent policy that
	// applied (Decision.Agent, "" when none), how much of who it is was
	// proven, and its purpose.
	Policy  string `json:"policy,omitempty"`
	Grade   string `json:"grade,omitempty"`
	Purpose string `json:"purpose,omitempty"`
	Other   bool   `json:"other,omitempty"`

	Requests    int64 `json:"requests"`
	Allowed     int64 `json:"allowed"`
	Denied      int64 `json:"denied"`
	RateLimited int64 `json:"rate_limited"`
	// ReportOnly counts the denials of Denied and RateLimited that
	// report-only mode did not apply: those requests were served.
	ReportOnly int64 `json:"report_only"`
}
