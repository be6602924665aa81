package report_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/report"
)

// BenchmarkObserve: the report's cost on the request path (issue 27: at
// most 10% of the matched-agent pipeline). allowed is a matched agent's
// allowed request, refused a denial (three tables), report-only a denial
// not applied, and parallel the allowed request on every core through the
// one mutex. Keys are already present, as they are for the agents a site
// sees: 0 allocations. distinct-paths counts a denial of a new path every
// time, the bounded tables' worst case; allowed-mixed eight agents in
// turn.
func BenchmarkObserve(b *testing.B) {
	agent := enforce.Decision{Outcome: enforce.Allow, Method: "GET", Path: "/api/search",
		Class: enforce.Class{Kind: enforce.KindKnown, Name: "GPTBot", Purpose: enforce.PurposeTrainingCrawler},
		Agent: "GPTBot", Grade: enforce.GradeProven, Capability: "product-search", Rule: "Allow: /api/*"}
	agent.Identity.Agent = "GPTBot"
	denied := agent
	denied.Outcome, denied.Status, denied.Path, denied.Rule = enforce.DenyPath, 403, "/admin/x", "Disallow: /admin/*"
	denied.Identity.Reason = "unproven"
	reportOnly := denied
	reportOnly.ReportOnly = true
	for _, c := range []struct {
		name string
		d    enforce.Decision
	}{{"allowed", agent}, {"refused", denied}, {"report-only", reportOnly}} {
		b.Run(c.name, func(b *testing.B) {
			r := report.New(report.Options{})
			b.ReportAllocs()
			for b.Loop() {
				r.Observe(c.d)
			}
		})
	}
	b.Run("allowed-mixed", func(b *testing.B) {
		r := report.New(report.Options{})
		var ds [8]enforce.Decision
		for i := range ds {
			ds[i] = agent
			ds[i].Class.Name = "Agent" + strconv.Itoa(i)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r.Observe(ds[i%len(ds)])
			i++
		}
	})
	b.Run("allowed-parallel", func(b *testing.B) {
		r := report.New(report.Options{})
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				r.Observe(agent)
			}
		})
	})
	b.Run("distinct-paths", func(b *testing.B) {
		r := report.New(report.Options{})
		paths := make([]string, 4096)
		for i := range paths {
			paths[i] = "/p/" + strconv.Itoa(i)
		}
		d := denied
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			d.Path = paths[i%len(paths)]
			i++
			r.Observe(d)
		}
	})
	b.Run("clock=time.Now", func(b *testing.B) {
		for b.Loop() {
			_ = time.Now()
		}
	})
}
