package redisstore

import (
	"testing"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

// Reply decoding: malformed replies are errors, never panics.
func TestParseReply(t *testing.T) {
	limits := []ratelimit.Limit{{Name: "a", Rate: 4, Period: time.Second}, {Name: "b", Rate: 2, Period: time.Second}}
	res := make([]ratelimit.Result, 2)
	for _, tc := range []struct {
		name  string
		reply any
		ok    bool
	}{
		{"allowed, ints and a float64", "\x93\xc3\xce\x00\x03\xd0\x90\xcb\x41\x2e\x84\x80\x00\x00\x00\x00", true},
		{"debt beyond the period", "\x93\xc3\x01\xcb\x41\x3e\x84\x80\x00\x00\x00\x00", false},
		{"negative debt", "\x93\xc3\x01\xff", false},
		{"NaN debt", "\x93\xc3\x01\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", false},
		{"denied, fixints and float32", "\x93\xc2\x05\xca\x3f\x80\x00\x00", true},
		{"not a string", int64(3), false},
		{"empty", "", false},
		{"wrong length", "\x92\xc3\x01", false},
		{"not a bool", "\x93\x01\x01\x01", false},
		{"truncated float", "\x93\xc3\x01\xcb\x00", false},
		{"trailing bytes", "\x93\xc3\x01\x01\x01", false},
		{"a string where a number goes", "\x93\xc3\x01\xa1x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := parseReply(tc.reply, limits, res)
			if (err == nil) != tc.ok {
				t.Fatalf("parseReply = %v, want ok=%v", err, tc.ok)
			}
		})
	}
	// The first case: 250000 µs of debt after the request on 4 per second:
	// one token used, 3 left; 1000000 µs on 2 per second: the last token.
	_ = parseReply("\x93\xc3\xce\x00\x03\xd0\x90\xcb\x41\x2e\x84\x80\x00\x00\x00\x00", limits, res)
	want := []ratelimit.Result{
		{Allowed: true, Limit: 4, Remaining: 3, Reset: 250 * time.Millisecond},
		{Allowed: true, Limit: 2, Remaining: 0, Reset: time.Second},
	}
	for i := range want {
		if res[i] != want[i] {
			t.Errorf("res[%d] = %+v, want %+v", i, res[i], want[i])
		}
	}
	// Denied: 5 µs of debt on a, 1 s on b: b had no token for 500ms more.
	_ = parseReply("\x93\xc2\x05\xca\x49\x74\x24\x00", limits, res)
	if !res[0].Allowed || res[0].Remaining != 3 || res[1].Allowed || res[1].RetryAfter != 500*time.Millisecond {
		t.Errorf("denied: %+v", res)
	}
}

func FuzzParseReply(f *testing.F) {
	f.Add("\x93\xc3\xce\x00\x03\xd0\x90\xcb\x41\x2e\x84\x80\x00\x00\x00\x00")
	f.Add("\x93\xc2\x05\xca\x49\x74\x24\x00")
	limits := []ratelimit.Limit{{Name: "a", Rate: 4, Period: time.Second}, {Name: "b", Rate: 2, Period: time.Second}}
	f.Fuzz(func(t *testing.T, reply string) {
		res := make([]ratelimit.Result, 2)
		if err := parseReply(reply, limits, res); err != nil {
			return
		}
		for _, r := range res {
			if r.Allowed && r.RetryAfter != 0 || !r.Allowed && (r.Remaining != 0 || r.RetryAfter <= 0) ||
				r.Remaining < 0 || r.Remaining > r.Limit || r.Reset < 0 || r.Reset > 2*time.Second {
				t.Errorf("inconsistent result %+v from %q", r, reply)
			}
		}
	})
}
