package enforce_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/agentready/agentready/enforce"
)

func ExampleWriteProblem() {
	w := httptest.NewRecorder()
	w.Header().Set(enforce.HeaderRetryAfter, strconv.Itoa(enforce.RetryAfterSeconds(1500*time.Millisecond)))
	link, _ := enforce.DescribedBy("https://outdoorsupply.example/.well-known/agents.txt")
	w.Header().Set("Link", link)
	_ = enforce.WriteProblem(w, enforce.Problem{
		Type:   enforce.ProblemQuotaExceeded,
		Title:  "Request cannot be satisfied as assigned quota has been exceeded",
		Status: http.StatusTooManyRequests,
		Detail: "agent policy allows 2 requests per minute",
		Extra:  map[string]any{enforce.ExtViolatedPolicies: []string{"agent"}},
	})
	fmt.Println(w.Code, w.Header().Get("Content-Type"), w.Header().Get("Retry-After"))
	fmt.Println(w.Header().Get("Link"))
	fmt.Println(w.Body)
	// Output:
	// 429 application/problem+json 2
	// <https://outdoorsupply.example/.well-known/agents.txt>; rel="describedby"
	// {"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Request cannot be satisfied as assigned quota has been exceeded","status":429,"detail":"agent policy allows 2 requests per minute","violated-policies":["agent"]}
}
