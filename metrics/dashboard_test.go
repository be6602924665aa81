package metrics_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/metrics"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/verify"
)

// The Grafana dashboard the docs ship (docs/operations.md, "Metrics").
const dashboardFile = "../docs/grafana-dashboard.json"

// targetLabels are the labels Prometheus itself attaches to every series
// it scrapes (the scrape target's job and instance): a query may select
// and group by them though package metrics does not export them.
var targetLabels = []string{"job", "instance"}

// TestGrafanaDashboard: every query of docs/grafana-dashboard.json (panel
// targets and template variables) names only series package metrics
// registers, and only labels those series carry; every series it
// registers has a panel; the Prometheus data source is the import input
// ${DS_PROMETHEUS}, so the dashboard imports into any Grafana; the panels
// do not overlap.
func TestGrafanaDashboard(t *testing.T) {
	exported := exportedSeries(t)
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash dashboard
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if dash.SchemaVersion < 39 { // Grafana 10.4 and 11
		t.Errorf("schemaVersion %d: export it from a current Grafana", dash.SchemaVersion)
	}
	if !slices.ContainsFunc(dash.Inputs, func(in input) bool {
		return in.Name == "DS_PROMETHEUS" && in.Type == "datasource" && in.PluginID == "prometheus"
	}) {
		t.Errorf("__inputs has no Prometheus data source DS_PROMETHEUS: %+v", dash.Inputs)
	}
	vars := map[string]bool{"__rate_interval": true, "__range": true, "__interval": true}
	used := map[string]bool{}
	for _, v := range dash.Templating.List {
		vars[v.Name] = true
		if v.Type != "query" {
			continue
		}
		if v.Datasource.UID != "${DS_PROMETHEUS}" {
			t.Errorf("variable %s: data source %q, want ${DS_PROMETHEUS}", v.Name, v.Datasource.UID)
		}
		m := regexp.MustCompile(`^label_values\((\w+),\s*(\w+)\)$`).FindStringSubmatch(v.Query.Query)
		if m == nil {
			t.Errorf("variable %s: query %q is not label_values(series, label)", v.Name, v.Query.Query)
			continue
		}
		if labels, ok := exported[m[1]]; !ok {
			t.Errorf("variable %s: %s is not a series package metrics exports", v.Name, m[1])
		} else if !labels[m[2]] {
			t.Errorf("variable %s: %s has no label %s", v.Name, m[1], m[2])
		}
	}
	if !vars["DS_PROMETHEUS"] {
		t.Error("no data source variable DS_PROMETHEUS: the dashboard needs one when provisioned rather than imported")
	}
	ids := map[int]bool{}
	var boxes []panel
	queries := 0
	for _, p := range dash.flatPanels() {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		g := p.GridPos
		if g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v outside the 24-column grid", p.Title, g)
		}
		for _, b := range boxes {
			if g.X < b.GridPos.X+b.GridPos.W && b.GridPos.X < g.X+g.W && g.Y < b.GridPos.Y+b.GridPos.H && b.GridPos.Y < g.Y+g.H {
				t.Errorf("panels %q and %q overlap", p.Title, b.Title)
			}
		}
		boxes = append(boxes, p)
		if p.Datasource.UID != "${DS_PROMETHEUS}" {
			t.Errorf("panel %q: data source %q, want ${DS_PROMETHEUS}", p.Title, p.Datasource.UID)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			queries++
			if tg.Datasource.UID != "${DS_PROMETHEUS}" {
				t.Errorf("panel %q, query %s: data source %q", p.Title, tg.RefID, tg.Datasource.UID)
			}
			for _, v := range regexp.MustCompile(`\$\{?(\w+)`).FindAllStringSubmatch(tg.Expr, -1) {
				if !vars[v[1]] {
					t.Errorf("panel %q: $%s is not a variable of the dashboard", p.Title, v[1])
				}
			}
			names, err := checkPromQL(tg.Expr, exported)
			if err != nil {
				t.Errorf("panel %q: %v\n\t%s", p.Title, err, tg.Expr)
			}
			for _, n := range names {
				used[n] = true
			}
		}
	}
	for name := range exported {
		if !used[name] {
			t.Errorf("no panel shows %s", name)
		}
	}
	t.Logf("%d panels, %d queries over %d series", len(boxes), queries, len(used))
}

// TestCheckPromQL: the checker TestGrafanaDashboard relies on refuses the
// mistakes it is there to catch.
func TestCheckPromQL(t *testing.T) {
	exported := exportedSeries(t)
	good := []string{
		`sum by (grade) (rate(agentready_decisions_total{policy="GPTBot"}[5m]))`,
		`sum(rate(agentready_decisions_total[$__rate_interval])) by (outcome, instance)`,
		`sum by (path) (rate(agentready_documents_total{status="304"}[5m])) / on (path) sum by (path) (rate(agentready_documents_total[5m]))`,
		`topk(5, sum without (class, verified, capability) (increase(agentready_decisions_total[1h] offset 1d)))`,
		`max(agentready_store_degraded) > bool 0`,
		`label_replace(sum by (reason) (agentready_verification_failures_total), "why", "$1", "reason", "(.*)")`,
	}
	for _, q := range good {
		if _, err := checkPromQL(q, exported); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	bad := map[string]string{
		`rate(agentready_decisions[5m])`:                                             "agentready_decisions",
		`sum(rate(process_cpu_seconds_total[5m]))`:                                   "process_cpu_seconds_total",
		`go_goroutines`:                                                              "go_goroutines",
		`sum by (grde) (rate(agentready_decisions_total[5m]))`:                       "grde",
		`rate(agentready_decisions_total{outcom="allow"}[5m])`:                       "outcom",
		`sum(agentready_documents_total) by (reason)`:                                "reason",
		`sum by (policy) (sum by (grade) (agentready_decisions_total))`:              "policy",
		`rat(agentready_decisions_total[5m])`:                                        "rat",
		`agentready_documents_total / on (grade) agentready_decisions_total`:         "grade",
		`{__name__=~"agentready_.*"}`:                                                "metric name",
		`sum(rate(agentready_unverified_claims_total[5m])`:                           "unbalanced",
		`label_replace(agentready_store_degraded, "x", "$1", "policy", "(.*)")`:      "policy",
		`sum by (policy) (agentready_unverified_claims_total)`:                       "policy",
		`agentready_verification_failures_total{policy="a"} + agentready_decisions`:  "agentready_decisions",
		`count_values("n", agentready_store_degraded) + sum by (n) (go_info)`:        "go_info",
		`sum by (instance) (rate(agentready_decisions_total{instance=~"$x"}[5m])) )`: "unexpected",
	}
	for q, want := range bad {
		if _, err := checkPromQL(q, exported); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %q", q, err, want)
		}
	}
}

// exportedSeries registers package metrics on a fresh registry, feeds it
// a decision of every outcome (one with a failed verification and an
// unverified claim), a document and a Failover, so that every vector has
// a child to gather, and returns each series' name and labels (with the
// scrape target's). Counters are exposed under the names New gives them,
// _total included, which is how Prometheus stores them.
func exportedSeries(t *testing.T) map[string]map[string]bool {
	t.Helper()
	reg := prometheus.NewRegistry()
	mx, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	for o := enforce.Outcome(0); o.String() != "unknown"; o++ {
		mx.Observe(enforce.Decision{Outcome: o, Class: enforce.Class{Kind: enforce.KindDeclared}, Agent: "GPTBot", Grade: enforce.GradeClaimed,
			Unverified: o == enforce.Allow, Identity: verify.Identity{Claimed: "GPTBot", Reason: "unproven"}})
	}
	docs := mx.Documents(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), servesAll{})
	docs.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/.well-known/agents.txt", nil))
	store, _ := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{})
	f, _ := ratelimit.NewFailover(store, ratelimit.FailoverConfig{})
	if err := mx.WatchStore(f); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	for _, mf := range mfs {
		labels := map[string]bool{"__name__": true}
		for _, l := range targetLabels {
			labels[l] = true
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = true
			}
		}
		out[mf.GetName()] = labels
	}
	for _, want := range []string{"agentready_decisions_total", "agentready_refusals_total", "agentready_unverified_claims_total",
		"agentready_verification_failures_total", "agentready_documents_total", "agentready_store_degraded"} {
		if out[want] == nil {
			t.Fatalf("%s was not gathered: %v", want, keys(out))
		}
	}
	return out
}

type servesAll struct{}

func (servesAll) ServesDocument(string) bool { return true }

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// The parts of a Grafana dashboard the test reads.
type dashboard struct {
	SchemaVersion int     `json:"schemaVersion"`
	Inputs        []input `json:"__inputs"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Datasource dsRef  `json:"datasource"`
			Query      query  `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type input struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	PluginID string `json:"pluginId"`
}

type panel struct {
	ID         int                      `json:"id"`
	Type       string                   `json:"type"`
	Title      string                   `json:"title"`
	Datasource dsRef                    `json:"datasource"`
	GridPos    struct{ X, Y, W, H int } `json:"gridPos"`
	Targets    []struct {
		RefID      string `json:"refId"`
		Expr       string `json:"expr"`
		Datasource dsRef  `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a collapsed row's
}

type dsRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// query is a variable's query: an object in current Grafanas, a string
// in older ones.
type query struct{ Query string }

func (q *query) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &q.Query); err == nil {
		return nil
	}
	var o struct {
		Query string `json:"query"`
	}
	err := json.Unmarshal(b, &o)
	q.Query = o.Query
	return err
}

// flatPanels lists the panels, those inside collapsed rows included.
func (d dashboard) flatPanels() []panel {
	var out []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			out = append(out, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out
}
