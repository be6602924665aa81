package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// corpusUnnamed is an agent no corpus file names.
const corpusUnnamed = "agentready-corpus-unnamed-bot"

// Lines of a robots.txt as the test reads them, apart from init's parser:
// a user-agent line's value, and a rule's pattern.
var (
	corpusAgentLine = regexp.MustCompile(`(?im)^[ \t\x{FEFF}]*user-agent[ \t]*:[ \t]*([^#\s]*)`)
	corpusRuleLine  = regexp.MustCompile(`(?im)^[ \t\x{FEFF}]*(?:allow|disallow)[ \t]*:[ \t]*([^#\s]*)`)
	corpusToken     = regexp.MustCompile("^[A-Za-z0-9~#$%'*+.^_`|-]+")
)

// corpusAgents are the product tokens the original names, then an agent
// it does not name.
func corpusAgents(body string) []string {
	var agents []string
	for _, m := range corpusAgentLine.FindAllStringSubmatch(body, -1) {
		if tok := corpusToken.FindString(m[1]); tok != "" && tok != "*" && !slices.Contains(agents, tok) {
			agents = append(agents, tok)
		}
	}
	return append(agents, corpusUnnamed)
}

// corpusPaths are the paths the files' rules cover: each pattern with its
// '*' filled in and its '$' dropped, a path below and a path beside it,
// each as a client sends it, octets beyond ASCII percent-encoded (RFC
// 3986 2.1: a request target holds none; RFC 9309 2.2.2 encodes them in
// the patterns).
func corpusPaths(bodies ...string) []string {
	paths := []string{"/", "/index.html"}
	for _, body := range bodies {
		for _, m := range corpusRuleLine.FindAllStringSubmatch(body, -1) {
			base := strings.TrimSuffix(m[1], "$")
			for _, fill := range []string{"", "x"} {
				p := escapeNonASCII(strings.ReplaceAll(base, "*", fill))
				if !strings.HasPrefix(p, "/") {
					p = "/" + p
				}
				paths = append(paths, p, p+"x", strings.TrimSuffix(p, "/")+"/x")
			}
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

// escapeNonASCII percent-encodes the octets of s beyond ASCII.
func escapeNonASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestInitCorpus runs init on every robots.txt of the corpus (real sites',
// testdata/robots-corpus/SOURCES.md): the declaration passes lint, and
// the robots.txt render -out writes from it is read by Google's parser
// (grobotstxt, the RFC 9309 reference port) as the original is, for every
// agent the original names and one it does not, on every path its rules
// cover, except where init reported a difference. The reports are checked
// too: each agent init says is decided otherwise is, on a path init names,
// and only those agents are. Then robots-parser, Protego and
// urllib.robotparser read them (init_corpus_parsers_test.go).
func TestInitCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/robots-corpus/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("%d corpus files, want at least 10", len(files))
	}
	read := map[string]corpusFile{}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			decl := filepath.Join(dir, "site.yaml")
			var stdout, stderr strings.Builder
			if code := run([]string{"init", "-robots", file, "-url", "https://site.example", "-o", decl}, &stdout, &stderr); code != 0 {
				t.Fatalf("init: exit %d: %s", code, stderr.String())
			}
			if code := run([]string{"lint", decl}, &stdout, &stderr); code != 0 {
				t.Fatalf("lint: exit %d: %s", code, stdout.String())
			}
			if code := run([]string{"render", "-out", filepath.Join(dir, "out"), decl}, io.Discard, &stderr); code != 0 {
				t.Fatalf("render: exit %d: %s", code, stderr.String())
			}
			rendered, err := os.ReadFile(filepath.Join(dir, "out", "robots.txt"))
			if err != nil {
				t.Fatal(err)
			}

			// What init reported, from the same run's notes.
			f := parseRobots(body, false)
			plan, _, code := initDeclaration(initOptions{url: "https://site.example", name: "site.example", description: "site.example"}, file, f, body, io.Discard)
			if code != 0 {
				t.Fatalf("initDeclaration: %d", code)
			}
			reported := map[string][]claim{} // by agent, corpusUnnamed for ""
			google := false
			for _, n := range plan.notes {
				if !strings.Contains(stderr.String(), n.msg) {
					t.Errorf("note not on stderr: %s", n.msg)
				}
				google = google || n.google
				for _, d := range n.diffs {
					a := d.agent
					if a == "" {
						a = corpusUnnamed
					}
					reported[strings.ToLower(a)] = append(reported[strings.ToLower(a)], claim{d, n.google})
				}
			}

			orig, gen := string(body), string(rendered)
			agents := corpusAgents(orig)
			paths := corpusPaths(orig, gen)
			// Each agent is a subtest of its own, run in parallel: Google's
			// parser reads the whole file for every pair.
			var mu sync.Mutex
			pairs, disagree := 0, map[string]int{}
			t.Run("agents", func(t *testing.T) {
				for _, agent := range agents {
					t.Run(agent, func(t *testing.T) {
						t.Parallel()
						n, d := checkAgent(t, orig, gen, agent, paths, reported[strings.ToLower(agent)], google)
						mu.Lock()
						pairs += n
						if d > 0 {
							disagree[strings.ToLower(agent)] = d
						}
						mu.Unlock()
					})
				}
			})
			for a := range reported {
				if disagree[a] == 0 {
					t.Errorf("init reported a difference for %s, and Google's parser reads both files alike on every path", a)
				}
			}
			t.Logf("%d agents, %d paths, %d pairs; %d agents decided otherwise (reported), %d notes", len(agents), len(paths), pairs, len(disagree), len(plan.notes))
			read[filepath.Base(file)] = corpusFile{orig, gen, agents, paths, reported}
		})
	}
	if len(read) == len(files) {
		corpusParsers(t, read)
	}
}

// checkAgent asks Google's parser for agent's verdict on every path in
// both files: where they differ, init must have reported a difference for
// the agent; each pair init claims (from the original against the
// generated file) must be as claimed. It returns the pairs asked and the
// disagreements.
func checkAgent(t *testing.T, orig, gen, agent string, paths []string, claims []claim, google bool) (pairs, disagree int) {
	allowed := func(robots, path string) bool {
		return grobotstxt.AgentAllowed(robots, agent, "https://site.example"+path)
	}
	ps := slices.Clone(paths)
	for _, d := range claims {
		ps = append(ps, d.path)
	}
	for _, p := range ps {
		pairs++
		a, b := allowed(orig, p), allowed(gen, p)
		if a == b {
			continue
		}
		disagree++
		if claims == nil {
			t.Errorf("%s: the original %s it, the generated robots.txt %s it, and init reported no difference for the agent", p, word(a), word(b))
		}
	}
	for _, d := range claims {
		if d.google {
			continue
		}
		// init's claim: the generated file decides the pair otherwise.
		if got := allowed(gen, d.path); got == d.wasAllowed {
			t.Errorf("%s: init reported the generated robots.txt %s it; Google's parser reads it %s", d.path, word(!d.wasAllowed), word(got))
		}
		if !google {
			if got := allowed(orig, d.path); got != d.wasAllowed {
				t.Errorf("%s: init reported the original %s it; Google's parser reads it %s", d.path, word(d.wasAllowed), word(got))
			}
		}
	}
	return pairs, disagree
}

// claim is a pair init reported, from a note on Google's reading or not.
type claim struct {
	verdictDiff
	google bool
}

func word(allowed bool) string {
	if allowed {
		return "allows"
	}
	return "disallows"
}
