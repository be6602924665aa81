package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNearestNames: the measure nearestNames documents, step by step.
func TestNearestNames(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"anthropic", []string{"anthropic-ai", "ClaudeBot", "Claude-User"}}, // the operator's agents, then names it begins
		{"claude", []string{"ClaudeBot", "Claude-Web", "Claude-Code"}},      // names that begin with it
		{"GPTBott", []string{"GPTBot"}},                                     // it begins with GPTBot
		{"gptbt", []string{"GPTBot"}},                                       // one edit
		{"Googlbot", []string{"Googlebot"}},                                 // one edit
		{"ai", nil},                                                         // too short to be near anything
		{"Xq7zzv", nil},
	} {
		if got := nearestNames(c.name); !slices.Equal(got, c.want) {
			t.Errorf("nearestNames(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"gptbot", "gptbot", 0}, {"gptbot", "gptbott", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}} {
		if got := levenshtein(c.a, c.b); got != c.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestLintNameNotes: lint notes each policy name that is no known agent's
// token, with the nearest names, and the site's own agent's as a hint;
// "*", known names (case aside), and generic clients get none; lint still exits 0.
func TestLintNameNotes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(file, []byte(`name: Shop
url: https://shop.example
description: Mugs
implicit_access: all-agents
agents:
  - name: "*"
  - name: GPTBot
  - name: claudebot
  - name: curl
  - name: claude
  - name: ShopAgent
  - name: openai
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"lint", file}, &out, &errb); code != 0 {
		t.Fatalf("lint: exit %d\n%s%s", code, out.String(), errb.String())
	}
	want := []string{
		file + ":10: note: agents[4].name: claude is no known agent's product token: the policy applies only to a User-Agent that carries claude (case aside); did you mean ClaudeBot, Claude-Web or Claude-Code? If it is the site's own agent, nothing is wrong",
		file + ":11: note: agents[5].name: ShopAgent is no known agent's product token: the policy applies only to a User-Agent that carries ShopAgent (case aside), as the site's own agent's would: nothing is wrong if that is meant",
		file + ":12: note: agents[6].name: openai applies to the User-Agent token openai alone, not to the operator's other agents: ChatGPT, ChatGPT-User, GPTBot, each a policy of its own",
		file + ": valid (draft-car, 0 capabilities, 7 agent policies)",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); !slices.Equal(got, want) {
		t.Errorf("lint printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
