// Package robotsparsers asks robots.txt parsers other than Google's about
// a file: the npm package robots-parser (3.0.1), Scrapy's Protego (0.2.1,
// Debian's python3-protego) and Python's urllib.robotparser. Each runs
// once per file, in a process of its own (the scripts in testdata), on
// every agent/path pair asked.
//
// Where a parser reads a robots.txt otherwise than RFC 9309, the way is
// stated as a Deviation, read in the parser's source, with a test that
// says which pairs it may reach; urllib.robotparser's reading is stated
// whole, as a model (PyGroups). Two suites read with them: the
// comparison of the robots.txt agentready generates with its enforcement
// (internal/testing/e2e), and that of the robots.txt agentready init
// starts from with the one it renders (cmd/agentready's TestInitCorpus).
// A deviation that reaches a pair is never an excuse in the first; in the
// second it is the parser's reading of a site's file, not init's doing,
// and is counted.
package robotsparsers

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// Query is one agent/path pair: the product token a parser is asked
// about and the path (with its query, if any).
type Query struct{ Agent, Path string }

// Origin is where every file is read as served: a parser is asked about
// Origin + Query.Path.
const Origin = "https://outdoorsupply.example"

// Parser is a robots.txt parser this package runs.
type Parser struct {
	Name string
	// Deviations are the ways it reads a robots.txt otherwise than RFC
	// 9309 (none for urllib.robotparser, whose reading is PyGroups').
	Deviations []Deviation
	cmd        func() *exec.Cmd
}

// dir is this package's directory, wherever the calling test runs from.
func dir() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Dir(here)
}

// NpmDir is where npm ci installs robots-parser (package-lock.json).
func NpmDir() string { return filepath.Join(dir(), "testdata", "robots-parser-js") }

// RobotsParser is the npm package robots-parser, and what is missing to
// run it ("" when nothing is).
func RobotsParser() (Parser, string) {
	script := filepath.Join(NpmDir(), "verdicts.mjs")
	return Parser{"robots-parser", NpmDeviations, func() *exec.Cmd { return exec.Command("node", script) }},
		testtools.NodePackage(NpmDir(), "robots-parser")
}

// Protego is Scrapy's robots.txt parser, and what is missing to run it.
func Protego() (Parser, string) {
	py, missing := testtools.ProtegoPython()
	script := filepath.Join(dir(), "testdata", "protego", "verdicts.py")
	return Parser{"Protego", ProtegoDeviations, func() *exec.Cmd { return exec.Command(py, script) }}, missing
}

// Urllib is Python's urllib.robotparser, and what is missing to run it.
func Urllib() (Parser, string) {
	script := filepath.Join(dir(), "testdata", "robotparser", "verdicts.py")
	return Parser{"urllib.robotparser", nil, func() *exec.Cmd { return exec.Command("python3", script) }},
		testtools.Python3()
}

// Verdicts runs the parser once on body and returns its verdict,
// allowed, on each pair: the script reads {"robots": BODY, "queries":
// [[AGENT, URL], ...]} on stdin and prints one JSON boolean a query.
func (p Parser) Verdicts(t testing.TB, body string, qs []Query) []bool {
	t.Helper()
	in := struct {
		Robots  string      `json:"robots"`
		Queries [][2]string `json:"queries"`
	}{Robots: body, Queries: [][2]string{}}
	for _, q := range qs {
		in.Queries = append(in.Queries, [2]string{q.Agent, Origin + q.Path})
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := p.cmd()
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = bytes.NewReader(b), &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s (%s): %v\n%s", p.Name, cmd, err, &stderr)
	}
	var v []bool
	if err := json.Unmarshal(out, &v); err != nil || len(v) != len(qs) {
		t.Fatalf("%s answered %d verdicts for %d queries (%v): %s", p.Name, len(v), len(qs), err, out)
	}
	return v
}

// Reaching are the ids of the parser's deviations that may change its
// verdict on q in f.
func (p Parser) Reaching(f File, q Query) []string {
	var ids []string
	for _, d := range p.Deviations {
		if d.Reaches(f, q) {
			ids = append(ids, d.ID)
		}
	}
	return ids
}
