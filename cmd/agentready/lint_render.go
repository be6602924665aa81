package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/internal/publish"
)

// quiet keeps New's own warnings out of lint's and render's output: lint
// says what matters as notes.
var quiet = agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))

// declFlags are the flags of lint and render: the file, and -dialect,
// which overrides the file's dialect key. code is the exit code when the
// command is done (-h, a bad flag), -1 otherwise.
func declFlags(name string, args []string, stdout, stderr io.Writer, more ...func(*flag.FlagSet)) (file string, ov overrides, code int) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	dialect := fs.String("dialect", "", "agents.txt grammar: draft-car or v0.1.0 (default: the file's dialect key, else draft-car)")
	for _, m := range more {
		m(fs)
	}
	files, code := parseArgs(fs, args, stdout, stderr)
	if code >= 0 {
		return "", ov, code
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "agentready %s: want one declaration FILE, got %d\n\n%s", name, len(files), usage)
		return "", ov, 2
	}
	switch *dialect {
	case "", "draft-car", "v0.1.0":
		ov.dialect = *dialect
	default:
		fmt.Fprintf(stderr, "agentready %s: -dialect %q: want draft-car or v0.1.0\n", name, *dialect)
		return "", ov, 2
	}
	return files[0], ov, -1
}

// lint decides on a declaration file as serve and render do: exit 0 when
// they would take it (with notes of what serve leaves to the upstream), 1
// with every problem (file, line, key) when not.
func lint(args []string, stdout, stderr io.Writer) int {
	file, ov, code := declFlags("lint", args, stdout, stderr)
	if code >= 0 {
		return code
	}
	d, err := prepare(file, ov, quiet)
	if err != nil {
		fmt.Fprintln(stdout, err)
		return 1
	}
	for _, n := range d.notes {
		fmt.Fprintln(stdout, n)
	}
	fmt.Fprintf(stdout, "%s: valid (%s, %d capabilities, %d agent policies)\n", file, d.formats.Dialect, len(d.Capabilities), len(d.Agents))
	return 0
}

// render prints every document a declaration file yields, each under a
// header naming it and its paths.
func render(args []string, stdout, stderr io.Writer) int {
	var out string
	file, ov, code := declFlags("render", args, stdout, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "write every document under `DIR`, robots.txt included, as a static host serves them")
	})
	if code >= 0 {
		return code
	}
	d, err := prepare(file, ov, quiet)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if out != "" {
		return renderTree(out, &d, stdout, stderr)
	}
	docs, err := publish.Render(&d.Site, publish.Options{Formats: d.formats, A2AVersion: d.a2aVersion})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", file, err)
		return 1
	}
	for i, doc := range docs {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "==> %s (%s) <==\n", doc.Name, strings.Join(doc.Paths, ", "))
		stdout.Write(doc.Body)
		if len(doc.Body) > 0 && doc.Body[len(doc.Body)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
	}
	return 0
}
