package redisstore

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/redistest"
	"github.com/agentready/agentready/ratelimit"
)

// RaceEnabled tells the external tests whether allocation counts mean
// anything in this build.
var RaceEnabled = raceEnabled

// The store allocates one string per call, the key; every other
// allocation is go-redis's, measured here on the same command with the key
// and argument built beforehand.
func TestLimitStoreAllocs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	prefix := redistest.Prefix(t)
	s, err := NewLimitStore(c, WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	k := ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.77/32")}
	limits := []ratelimit.Limit{
		{Name: "site", Key: k, Rate: 1 << 30, Period: time.Hour},
		{Name: "agent:claude", Key: k, Rate: 1 << 30, Period: time.Hour},
		{Name: "capability:search", Key: ratelimit.Key{Net: k.Net, ID: "claude"}, Rate: 1 << 30, Period: time.Hour},
	}
	res := make([]ratelimit.Result, 3)
	ctx := context.Background()
	if err := s.Allow(ctx, limits, res); err != nil { // loads the script
		t.Fatal(err)
	}
	store := testing.AllocsPerRun(500, func() {
		if err := s.Allow(ctx, limits, res); err != nil {
			t.Fatal(err)
		}
	})

	keys := []string{string(s.appendKey(nil, &k))}
	arg := appendArrayHeader(nil, 12)
	for i := range limits {
		arg = appendUint(arg, 1)
		arg = appendField(arg, &limits[i])
		arg = appendUint(arg, uint64(limits[i].Rate))
		arg = appendUint(arg, uint64(micros(limits[i].Period)))
	}
	args := []any{arg}
	raw := testing.AllocsPerRun(500, func() {
		v, err := allowScript.EvalSha(ctx, c, keys, args...).Result()
		if err != nil {
			t.Fatal(err)
		}
		if err := parseReply(v, limits, res); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocs per call: store %v, go-redis EvalSha alone %v", store, raw)
	// Under the race detector sync.Pool drops items: counts mean nothing.
	if !raceEnabled && store > raw+1 {
		t.Errorf("the store allocates %v per call, go-redis %v: more than the one key string", store, raw)
	}
}

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
