package report

import (
	"html/template"
	"time"

	"github.com/agentready/agentready/internal/reportview"
)

// pageData is what the page's template is given: the snapshot, and what
// the page adds to it.
type pageData struct {
	reportview.Snapshot
	// Refresh is the seconds after which the page reloads itself, 0 for
	// never.
	Refresh int
	// SinceStart is set when the window starts at the report's start.
	SinceStart bool
	Chart      chart
}

func newPageData(s reportview.Snapshot, refresh int) pageData {
	return pageData{Snapshot: s, Refresh: refresh, SinceStart: s.From.Equal(s.Started), Chart: newChart(&s)}
}

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
{{- if .Refresh}}
<meta http-equiv="refresh" content="{{.Refresh}}">
{{- end}}
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
tr.total td { font-weight: 600; border-top: 2px solid #999; padding-top: .45em; }
.note { color: #555; }
.side { display: flex; flex-wrap: wrap; gap: 0 2.5em; align-items: flex-start; }
figure { margin: 1.2em 0; max-width: 660px; }
figcaption { font-weight: 600; font-size: 1.1em; padding: .3em 0; }
svg text { font: 11px system-ui, sans-serif; fill: #555; }
.allowed { fill: #2e7d32; background: #2e7d32; }
.limited { fill: #ef6c00; background: #ef6c00; }
.denied { fill: #c62828; background: #c62828; }
.axis { stroke: #999; stroke-width: 1; }
.start { stroke: #555; stroke-width: 1; stroke-dasharray: 3 3; }
.key { display: inline-block; width: .8em; height: .8em; margin: 0 .3em 0 1em; vertical-align: -.05em; }
.bad { color: #c62828; font-weight: 600; }
td.msg { max-width: 26em; overflow-wrap: anywhere; }
</style>
</head>
<body>
<h1>Agents on this replica</h1>
<p>From {{when .From}} to {{when .To}} (generated {{when .To}}): {{if .SinceStart}}since the report started (it counts the last {{.Window}} at most){{else}}the last {{.Window}}{{end}}, kept in 60 slots of {{.Resolution}}; counts leave the report a slot at a time.</p>
<p class="note">{{if .Refresh}}This page reloads itself every {{.Refresh}} s.{{else}}For a page that reloads itself, add ?refresh=SECONDS to its address (5 to 3600).{{end}}</p>
<p class="note">This report is this replica's: each replica counts only the requests it served. The fleet's view is Prometheus's (docs/operations.md).</p>

<div class="side">
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
{{template "chart" .}}
</div>
{{template "health" .}}

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
{{template "usage" (args "capabilities" "Capabilities used" "Capability" .Capabilities)}}
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
<table id="rules">
<caption>Rules that refused most, by policy and grade</caption>
<thead><tr><th>Rule</th><th>Policy</th><th>Grade</th><th>Limit</th><th class="n">Refused</th><th class="n">Denied</th><th class="n">Rate-limited</th><th class="n">Report-only</th></tr></thead>
<tbody>
{{- range .Rules}}
<tr{{if .Other}} class="other"{{end}}><td class="name">{{if .Other}}other{{else}}{{show .Name}}{{end}}</td><td>{{if not .Other}}{{show .Policy}}{{end}}</td><td>{{if not .Other}}{{show .Grade}}{{end}}</td><td>{{if not .Other}}{{show .Limit}}{{end}}</td><td class="n">{{.Requests}}</td><td class="n">{{.Denied}}</td><td class="n">{{.RateLimited}}</td><td class="n">{{.ReportOnly}}</td></tr>
{{- else}}
<tr><td colspan="8">No refusals in the window.</td></tr>
{{- end}}
</tbody>
</table>
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
{{define "usage"}}
<table id="{{.ID}}">
<caption>{{.Caption}}</caption>
<thead><tr><th>{{.Head}}</th><th class="n">Requests</th><th class="n">Allowed</th><th class="n">Denied</th><th class="n">Rate-limited</th><th class="n">Report-only</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr{{if .Other}} class="other"{{end}}><td class="name">{{if .Other}}other{{else}}{{show .Name}}{{end}}</td><td class="n">{{.Requests}}</td><td class="n">{{.Allowed}}</td><td class="n">{{.Denied}}</td><td class="n">{{.RateLimited}}</td><td class="n">{{.ReportOnly}}</td></tr>
{{- else}}
<tr><td colspan="6">No requests to a capability in the window.</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{define "health"}}
<table id="health">
<caption>Reloads and upstream</caption>
<tbody>
{{- with .LastReload}}
<tr><th>Last reload</th><td>{{when .At}}: {{if .OK}}taken{{else}}<span class="bad">refused</span>, the running declaration kept serving{{end}}</td></tr>
{{- if not .OK}}
<tr><th>Why refused</th><td class="msg">{{show .Error}}</td></tr>
{{- end}}
<tr><th>Last reload taken</th><td>{{if .LastOK.IsZero}}none{{else}}{{when .LastOK}}{{end}}</td></tr>
<tr><th>Reloads in the window</th><td>{{.Succeeded}} taken, {{.Failed}} refused</td></tr>
{{- else}}
<tr><th>Last reload</th><td>none since the report started</td></tr>
{{- end}}
{{- with .Upstream}}
<tr><th>Upstream requests</th><td class="n">{{.Requests}}</td></tr>
<tr><th>Upstream errors (no answer)</th><td class="n">{{if .Errors}}<span class="bad">{{.Errors}}</span>{{else}}0{{end}}</td></tr>
<tr><th>Upstream 5xx answers</th><td class="n">{{.ServerErrors}}</td></tr>
<tr><th>Last upstream error</th><td class="msg">{{if .LastErrorAt.IsZero}}none{{else}}{{when .LastErrorAt}}: {{show .LastError}}{{end}}</td></tr>
{{- else}}
<tr><th>Upstream</th><td>not told of (agentready serve tells it)</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{define "chart"}}
<figure id="chart">
<figcaption>Agent requests per {{.Resolution}}</figcaption>
<svg width="{{.Chart.Width}}" height="{{.Chart.Height}}" viewBox="0 0 {{.Chart.Width}} {{.Chart.Height}}" role="img" aria-label="Agent requests per {{.Resolution}} over the window, at most {{.Chart.Max}} a slot">
<line class="axis" x1="{{.Chart.Left}}" y1="{{.Chart.Base}}" x2="{{.Chart.Right}}" y2="{{.Chart.Base}}"/>
<line class="axis" x1="{{.Chart.Left}}" y1="{{.Chart.Top}}" x2="{{.Chart.Left}}" y2="{{.Chart.Base}}"/>
<text x="{{.Chart.Left}}" y="{{.Chart.Top}}" dx="-6" dy="4" text-anchor="end">{{.Chart.Max}}</text>
<text x="{{.Chart.Left}}" y="{{.Chart.Base}}" dx="-6" text-anchor="end">0</text>
<text x="{{.Chart.Left}}" y="{{.Chart.Height}}" dy="-4">{{.Chart.From}}</text>
<text x="{{.Chart.Right}}" y="{{.Chart.Height}}" dy="-4" text-anchor="end">{{.Chart.To}}</text>
{{- if .Chart.Start}}
<line class="start" x1="{{.Chart.Start}}" y1="{{.Chart.Top}}" x2="{{.Chart.Start}}" y2="{{.Chart.Base}}"/>
{{- end}}
{{- range .Chart.Bars}}
<g><title>{{.Title}}</title>{{$x := .X}}{{$w := .W}}{{range .Segs}}<rect class="{{.Class}}" x="{{$x}}" y="{{.Y}}" width="{{$w}}" height="{{.H}}"/>{{end}}</g>
{{- end}}
</svg>
<p class="note"><span class="key allowed"></span>allowed<span class="key limited"></span>rate-limited<span class="key denied"></span>denied{{if .Chart.Start}}; the dashed line is the report's start{{end}}. The same counts are report.json's "series".</p>
</figure>
{{- end}}
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
