package agentsmd

import (
	"testing"
	"time"

	"github.com/agentready/agentready/config"
)

func TestRateProse(t *testing.T) {
	tests := []struct {
		rate config.Rate
		want string
	}{
		{config.PerSecond(1), "1 request/second"},
		{config.PerSecond(10), "10 requests/second"},
		{config.PerMinute(60), "60 requests/minute"},
		{config.PerMinute(1), "1 request/minute"},
		{config.PerHour(1000), "1000 requests/hour"},
		{config.PerDay(1), "1 request/day"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := rateProse(tt.rate); got != tt.want {
				t.Errorf("rateProse(%v) = %q; want %q", tt.rate, got, tt.want)
			}
		})
	}
}

func TestDurationProse(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{time.Second, "1 second"},
		{90 * time.Second, "90 seconds"},
		{time.Minute, "1 minute"},
		{30 * time.Minute, "30 minutes"},
		{90 * time.Minute, "90 minutes"},
		{time.Hour, "1 hour"},
		{48 * time.Hour, "48 hours"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := durationProse(tt.d); got != tt.want {
				t.Errorf("durationProse(%v) = %q; want %q", tt.d, got, tt.want)
			}
		})
	}
}

// TestBlockStart checks the line classifier on its own, including the
// near-misses that must stay text.
func TestBlockStart(t *testing.T) {
	tests := []struct {
		line  string
		block bool
	}{
		{"# h", true}, {"#", true}, {"###### h", true}, {"#hashtag", true},
		{"> q", true}, {">", true},
		{"```", true}, {"~~~ go", true},
		{"---", true}, {"***", true}, {"___", true}, {"- - -", true}, {"===", true}, {"|---|:-:|", true}, {":", true},
		{"- x", true}, {"-", true}, {"* x", true}, {"+\tx", true}, {"1. x", true}, {"123456789) x", true}, {"7.", true},
		{" x", true}, {"\tx", true},
		{"<div>", true}, {"<div class=x>", true}, {"<br/>", true}, {"</p>", true}, {"<!-- c -->", true}, {"<?php", true}, {"<p", true},
		{"[a]: /u", true}, {"[^1]: note", true},
		{"[ ] todo", true}, {"[x]", true},

		{"plain text", false}, {"-5 degrees", false}, {"*emphasis*", false}, {"+1 from me", false},
		{"1234567890. too many digits", false}, {"3.5 stars", false}, {"1.5", false},
		{"<https://a.example/x>", false}, {"<agents@a.example>", false}, {"<3", false}, {"< x", false},
		{"[link](https://a.example)", false}, {"[a] b", false}, {"[xy] z", false},
		{"C#", false}, {"`code`", false}, {"``inline``", false}, {"a | b", false}, {"=> arrow", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			why := blockStart(tt.line)
			if (why != "") != tt.block {
				t.Errorf("blockStart(%q) = %q, want block=%v", tt.line, why, tt.block)
			}
		})
	}
}
