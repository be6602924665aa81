package report_test

import (
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/report"
)

// TestTickingClock: without Options.Now the timer keeps the slot: counts
// are seen at once and leave the window as it passes.
func TestTickingClock(t *testing.T) {
	r := report.New(report.Options{Window: 60 * time.Millisecond}) // slots of 1ms
	r.Observe(gptProven)
	r.SessionOpened()
	if s := r.Snapshot(); s.Total.Requests != 1 || s.SessionsOpened != 1 || s.Resolution != time.Millisecond {
		t.Fatalf("%d requests %d sessions, resolution %v", s.Total.Requests, s.SessionsOpened, s.Resolution)
	}
	deadline := time.Now().Add(10 * time.Second)
	for r.Snapshot().Total.Requests != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the count never left a 60ms window")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The timer has moved on: a count now is in the window, and leaves it.
	r.Observe(gptProven)
	if s := r.Snapshot(); s.Total.Requests != 1 || s.To.Sub(s.From) > 61*time.Millisecond {
		t.Errorf("after the window: %d requests, from %v to %v", s.Total.Requests, s.From, s.To)
	}
}

// TestCollected: a Report nobody holds is collected, its timer with it.
func TestCollected(t *testing.T) {
	w := weak.Make(report.New(report.Options{Window: 60 * time.Millisecond}))
	for range 50 {
		runtime.GC()
		if w.Value() == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("a Report nobody holds is kept (by its timer)")
}

// TestConcurrent: Observe, the session and artifact counts, the upstream
// and reload reports, Snapshot and the page at once (run with -race); every count is there after.
func TestConcurrent(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Rows: 3, Now: c.now})
	const workers, each = 8, 2000
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range each {
				d := claudeClaimed
				if i%3 == 0 {
					d = deny(d, enforce.DenyRate, 429, "Rate-Limit: 60/minute", "/api")
				}
				d.Class.Name = string(rune('a' + (g+i)%10))
				r.Observe(d)
				r.SessionOpened()
				r.Upstream(200, nil)
				if i%500 == 0 {
					r.Reloaded(nil)
				}
				if i%100 == 0 {
					c.add(time.Second)
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 50 {
				checkSums(t, r.Snapshot())
				r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
				r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/report.json", nil))
			}
		})
	}
	wg.Wait()
	s := r.Snapshot()
	if s.Upstream == nil || s.Upstream.Requests != workers*each || s.LastReload == nil || s.LastReload.Succeeded != workers*each/500 {
		t.Errorf("upstream %+v, last reload %+v", s.Upstream, s.LastReload)
	}
	if s.Total.Requests != workers*each || s.SessionsOpened != workers*each || len(s.Agents) != 4 {
		t.Errorf("%d requests %d sessions %d rows, want %d %d 4", s.Total.Requests, s.SessionsOpened, len(s.Agents), workers*each, workers*each)
	}
	checkSums(t, s)
}
