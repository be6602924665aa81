package report_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/report"
)

func ExampleReport_ServeHTTP() {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	rep := report.New(report.Options{Rows: 2, Now: func() time.Time { return now }})

	// What agentready.WithReport hands the report for each request.
	gpt := enforce.Decision{Outcome: enforce.Allow, Path: "/api/search", Agent: "*", Grade: enforce.GradeClaimed,
		Class: enforce.Class{Kind: enforce.KindKnown, Name: "GPTBot", Purpose: enforce.PurposeTrainingCrawler}}
	rep.Observe(gpt)
	rep.Observe(gpt)
	gpt.Outcome, gpt.Status, gpt.Rule, gpt.Path = enforce.DenyPath, 403, "Disallow: /admin/*", "/admin/"
	rep.Observe(gpt)
	rep.Observe(enforce.Decision{Outcome: enforce.DenyRate, Status: 429, Path: "/api/search", Agent: "*", Grade: enforce.GradeAnonymous,
		Rule: "Rate-Limit: 30/minute", Class: enforce.Class{Kind: enforce.KindGeneric, Name: "curl", Purpose: enforce.PurposeUnknown}})
	rep.Observe(enforce.Decision{Outcome: enforce.Allow, Path: "/", Agent: "*", Grade: enforce.GradeAnonymous,
		Class: enforce.Class{Kind: enforce.KindUnknown, Purpose: enforce.PurposeUnknown}})
	rep.Observe(enforce.Decision{Outcome: enforce.Pass, Path: "/", Grade: enforce.GradeAnonymous, Class: enforce.Class{Kind: enforce.KindBrowser}})
	rep.SessionOpened()

	// The report's JSON, as a site's own tooling reads it.
	w := httptest.NewRecorder()
	rep.ServeHTTP(w, httptest.NewRequest("GET", "/report.json", nil))
	type row struct {
		Name, Grade, Purpose      string
		Requests, Allowed, Denied int64
		RateLimited               int64 `json:"rate_limited"`
	}
	var s struct {
		From, To       time.Time
		Resolution     time.Duration `json:"resolution_ns"`
		Total          row
		Agents, Rules  []row
		Passed         int64
		SessionsOpened int64 `json:"sessions_opened"`
	}
	if err := json.NewDecoder(w.Body).Decode(&s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("from %s to %s, slots of %v\n", s.From.Format(time.TimeOnly), s.To.Format(time.TimeOnly), s.Resolution)
	for _, r := range s.Agents {
		fmt.Printf("%-9s %-8s %-16s allowed %d denied %d rate-limited %d\n", r.Name, r.Grade, r.Purpose, r.Allowed, r.Denied, r.RateLimited)
	}
	for _, r := range s.Rules {
		fmt.Printf("refused by %q: %d\n", r.Name, r.Requests)
	}
	fmt.Printf("agent requests %d, browsers passed %d, sessions %d\n", s.Total.Requests, s.Passed, s.SessionsOpened)
	// Output:
	// from 12:00:00 to 12:00:00, slots of 1m0s
	// GPTBot    claimed  training-crawler allowed 2 denied 1 rate-limited 0
	// (unknown) anonymous unknown          allowed 1 denied 0 rate-limited 0
	// other                               allowed 0 denied 0 rate-limited 1
	// refused by "Disallow: /admin/*": 1
	// refused by "Rate-Limit: 30/minute": 1
	// agent requests 5, browsers passed 1, sessions 1
}
