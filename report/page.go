package report

import (
	"html/template"
	"time"

	"github.com/agentready/agentready/internal/reportview"
)

// refusals is what the page's template of a table of refusals is given.
type refusals struct {
	ID, Caption, Head string
	Rows              []reportview.Row
}

// page is the report's HTML: server-rendered, every value escaped by
// html/template, the style inline, no script.
var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"show": show,
	"when": func(t time.Time) string { return t.Format("2006-01-02 15:04:05 MST") },
	"args": func(id, caption, head string, rows []reportview.Row) refusals {
		return refusals{id, caption, head, rows}
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentready: agents on this replica</title>
<style>
body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1a1a1a; background: #fff; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
p { margin: .3em 0; }
table { border-collapse: collapse; margin: 1.2em 0; min-width: 30em; }
caption { text-align: left; font-weight: 600; font-size: 1.1em; padding: .3em 0; }
th, td { border-bottom: 1px solid #ddd; padding: .25em .7em; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.name { max-width: 32em; word-break: break-all; }
tr.other td { font-style: italic; color: #555; }
tr.total td { font-weight: 600; border-top: 2px solid #999; }
.note { color: #555; }
</style>
</head>
<body>
<h1>Agents on this replica</h1>
<p>From {{when .From}} to {{when .To}} (generated {{when .To}}): the last {{.Window}}, kept in 60 slots of {{.Resolution}}; counts leave the report a slot at a time.</p>
<p class="note">This report is this replica's: each replica counts only the requests it served. The fleet's view is Prometheus's (docs/operations.md).</p>

<table id="totals">
<caption>Totals</caption>
<tbody>
<tr><th>Agent requests</th><td class="n">{{.Total.Requests}}</td></tr>
<tr><th>Allowed</th><td class="n">{{.Total.Allowed}}</td></tr>
<tr><th>Denied</th><td class="n">{{.Total.Denied}}</td></tr>
<tr><th>Rate-limited</th><td class="n">{{.Total.RateLimited}}</td></tr>
<tr><th>Report-only (denials not applied, counted above)</th><td class="n">{{.Total.ReportOnly}}</td></tr>
<tr><th>Browsers and probes passed (not agents)</th><td class="n">{{.Passed}}</td></tr>
<tr><th>Verification failures</th><td class="n">{{.Failures}}</td></tr>
<tr><th>Answered by the rate-limit store's failure policy</th><td class="n">{{.Degraded}}</td></tr>
<tr><th>Sessions opened</th><td class="n">{{.SessionsOpened}}</td></tr>
<tr><th>Audit artifacts sealed</th><td class="n">{{.ArtifactsSealed}}</td></tr>
</tbody>
</table>

<table id="agents">
<caption>Agents by name, grade and purpose</caption>
<thead><tr><th>Agent</th><th>Policy</th><th>Grade</th><th>Purpose</th><th class="n">Requests</th><th class="n">Allowed</th><th class="n">Denied</th><th class="n">Rate-limited</th><th class="n">Report-only</th></tr></thead>
<tbody>
{{- range .Agents}}
<tr{{if .Other}} class="other"{{end}}><td class="name">{{if .Other}}other{{else}}{{show .Name}}{{end}}</td><td>{{if not .Other}}{{show .Policy}}{{end}}</td><td>{{if not .Other}}{{show .Grade}}{{end}}</td><td>{{if not .Other}}{{show .Purpose}}{{end}}</td><td class="n">{{.Requests}}</td><td class="n">{{.Allowed}}</td><td class="n">{{.Denied}}</td><td class="n">{{.RateLimited}}</td><td class="n">{{.ReportOnly}}</td></tr>
{{- else}}
<tr><td colspan="9">No agent requests in the window.</td></tr>
{{- end}}
</tbody>
<tfoot>
<tr class="total"><td>total</td><td></td><td></td><td></td><td class="n">{{.Total.Requests}}</td><td class="n">{{.Total.Allowed}}</td><td class="n">{{.Total.Denied}}</td><td class="n">{{.Total.RateLimited}}</td><td class="n">{{.Total.ReportOnly}}</td></tr>
</tfoot>
</table>
<table id="tools">
<caption>MCP tools called</caption>
<thead><tr><th>Tool</th><th class="n">Requests</th><th class="n">Allowed</th><th class="n">Denied</th><th class="n">Rate-limited</th><th class="n">Report-only</th></tr></thead>
<tbody>
{{- range .Tools}}
<tr{{if .Other}} class="other"{{end}}><td class="name">{{if .Other}}other{{else}}{{show .Name}}{{end}}</td><td class="n">{{.Requests}}</td><td class="n">{{.Allowed}}</td><td class="n">{{.Denied}}</td><td class="n">{{.RateLimited}}</td><td class="n">{{.ReportOnly}}</td></tr>
{{- else}}
<tr><td colspan="6">No tool calls in the window.</td></tr>
{{- end}}
</tbody>
</table>
{{template "refusals" (args "refusals" "Refusals by reason" "Reason" .Refusals)}}
{{template "refusals" (args "rules" "Rules that refused most" "Rule" .Rules)}}
{{template "refusals" (args "paths" "Paths refused most" "Path" .Paths)}}
<table id="reasons">
<caption>Verification failures by reason</caption>
<thead><tr><th>Reason</th><th class="n">Requests</th><th class="n">Allowed</th><th class="n">Denied</th><th class="n">Rate-limited</th><th class="n">Report-only</th></tr></thead>
<tbody>
{{- range .Reasons}}
<tr{{if .Other}} class="other"{{end}}><td class="name">{{if .Other}}other{{else}}{{show .Name}}{{end}}</td><td class="n">{{.Requests}}</td><td class="n">{{.Allowed}}</td><td class="n">{{.Denied}}</td><td class="n">{{.RateLimited}}</td><td class="n">{{.ReportOnly}}</td></tr>
{{- else}}
<tr><td colspan="6">No verification failures in the window.</td></tr>
{{- end}}
</tbody>
</table>
</body>
</html>
{{define "refusals"}}
<table id="{{.ID}}">
<caption>{{.Caption}}</caption>
<thead><tr><th>{{.Head}}</th><th class="n">Refused</th><th class="n">Denied</th><th class="n">Rate-limited</th><th class="n">Report-only</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr{{if .Other}} class="other"{{end}}><td class="name">{{if .Other}}other{{else}}{{show .Name}}{{end}}</td><td class="n">{{.Requests}}</td><td class="n">{{.Denied}}</td><td class="n">{{.RateLimited}}</td><td class="n">{{.ReportOnly}}</td></tr>
{{- else}}
<tr><td colspan="5">No refusals in the window.</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}`))
