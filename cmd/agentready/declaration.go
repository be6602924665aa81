package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"go.yaml.in/yaml/v3"
)

// declFlags are the flags of lint and render: the file, and what is
// published (which decides what validation requires). code is the exit
// code when the command is done (-h, a bad flag), -1 otherwise.
func declFlags(name string, args []string, stdout, stderr io.Writer) (file string, f config.Formats, code int) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dialect := fs.String("dialect", "draft-car", "agents.txt grammar: draft-car or v0.1.0")
	files, code := parseArgs(fs, args, stdout, stderr)
	if code >= 0 {
		return "", f, code
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "agentready %s: want one declaration FILE, got %d\n\n%s", name, len(files), usage)
		return "", f, 2
	}
	switch *dialect {
	case "draft-car":
	case "v0.1.0":
		f.Dialect = config.DialectV010
	default:
		fmt.Fprintf(stderr, "agentready %s: -dialect %q: want draft-car or v0.1.0\n", name, *dialect)
		return "", f, 2
	}
	return files[0], f, -1
}

// declaration is a declaration file as serve reads it: the Site, and the
// file's upstream setting.
type declaration struct {
	config.Site
	// strictUpstream is the file's "upstream: {strict: true}".
	strictUpstream bool
}

// load reads and validates a declaration file, printing every problem as
// FILE:LINE: field: message. ok is false when there was any. The file is
// read once: its site and serve's settings are one version.
func load(file string, f config.Formats, out io.Writer) (decl declaration, ok bool) {
	b, err := os.ReadFile(file)
	var lines config.Lines
	if err == nil {
		decl.Site, lines, err = config.ParseSite(b)
	}
	if err == nil {
		decl.strictUpstream, err = strictUpstream(b)
	}
	if err == nil {
		err = lines.Locate(config.Validate(&decl.Site, f))
	}
	if err == nil {
		return decl, true
	}
	for _, e := range unjoin(err) {
		var fe *config.FileError
		if errors.As(e, &fe) && fe.Line > 0 {
			fmt.Fprintf(out, "%s:%d: %s\n", file, fe.Line, strings.TrimPrefix(fe.Error(), fmt.Sprintf("line %d: ", fe.Line)))
		} else {
			fmt.Fprintf(out, "%s: %v\n", file, e)
		}
	}
	return decl, false
}

// strictUpstream reads the file's "upstream: {strict: ...}", which
// config.ParseSite has checked as it checks every key (a mapping holding
// only strict, a boolean true or false).
func strictUpstream(b []byte) (bool, error) {
	var f struct {
		Upstream struct {
			Strict bool `yaml:"strict"`
		} `yaml:"upstream"`
	}
	err := yaml.Unmarshal(b, &f)
	return f.Upstream.Strict, err
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// lint validates a declaration file: exit 0 when it is valid, 1 with the
// problems (file, line, field path) when not.
func lint(args []string, stdout, stderr io.Writer) int {
	file, f, code := declFlags("lint", args, stdout, stderr)
	if code >= 0 {
		return code
	}
	decl, ok := load(file, f, stdout)
	if !ok {
		return 1
	}
	fmt.Fprintf(stdout, "%s: valid (%d capabilities, %d agent policies)\n", file, len(decl.Capabilities), len(decl.Agents))
	return 0
}

// render prints every document a declaration file yields, each under a
// header naming it and its paths.
func render(args []string, stdout, stderr io.Writer) int {
	file, f, code := declFlags("render", args, stdout, stderr)
	if code >= 0 {
		return code
	}
	decl, ok := load(file, f, stderr)
	if !ok {
		return 1
	}
	docs, err := publish.Render(&decl.Site, publish.Options{Formats: f})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", file, err)
		return 1
	}
	for i, d := range docs {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "==> %s (%s) <==\n", d.Name, strings.Join(d.Paths, ", "))
		stdout.Write(d.Body)
		if len(d.Body) > 0 && d.Body[len(d.Body)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
	}
	return 0
}
