package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// root is the repository, seen from this directory.
const root = "../.."

// pages returns the README and every page of docs/, by path from the root.
func pages(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, filepath.Join(root, "README.md"))
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, n)
		out[filepath.ToSlash(rel)] = string(b)
	}
	if len(out) < 5 {
		t.Fatalf("only %d pages found: %v", len(out), names)
	}
	return out
}

// cutFrom is the first line of a Go block that is an excerpt: it names
// the example file the block is cut from.
var cutFrom = regexp.MustCompile(`^// cut from (examples/[A-Za-z0-9_/.-]+\.go)\n`)

// TestREADMEGoBlocks holds the Go of the README and of docs/ to compiling
// code: a block that is a whole program ("package main") is built as it
// stands; any other block names in its first line the example file it is
// cut from, and its lines (blank lines aside, spacing folded) must stand
// consecutively in that file, which the test suite builds, with its
// imports imported there. A reader who copies an excerpt finds the names
// it uses in that file.
func TestREADMEGoBlocks(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	total := 0
	for page, md := range pages(t) {
		blocks := fenced(md, "go")
		total += len(blocks)
		if page == "README.md" && len(blocks) < 3 {
			t.Errorf("%d Go blocks found in the README: the quick start, the first hour and chi are expected", len(blocks))
		}
		for i, b := range blocks {
			where := fmt.Sprintf("%s Go block %d", page, i+1)
			if strings.HasPrefix(b, "package main") {
				buildProgram(t, goTool, where, b)
				continue
			}
			m := cutFrom.FindStringSubmatch(b)
			if m == nil {
				t.Errorf("%s is neither a program nor names the file it is cut from (first line \"// cut from examples/...go\"):\n%s", where, b)
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, m[1]))
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			imports, code := splitImports(b[len(m[0]):])
			for _, imp := range imports {
				if !strings.Contains(string(src), imp) {
					t.Errorf("%s imports %s, which %s does not", where, imp, m[1])
				}
			}
			if !inOrder(foldLines(code), foldLines(string(src))) {
				t.Errorf("%s is not an excerpt of %s:\n%s", where, m[1], code)
			}
		}
	}
	if total < 12 {
		t.Errorf("%d Go blocks in the README and docs/; the moved excerpts are missing", total)
	}
}

// buildProgram vets a block that is a whole program, and checks that a
// program that does not use Redis links no Redis client.
func buildProgram(t *testing.T, goTool, where, b string) {
	t.Helper()
	dir, err := os.MkdirTemp(".", "_readme_block_")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(goTool, "vet", "./"+dir).CombinedOutput(); err != nil {
		t.Errorf("%s (a program) does not build: %v\n%s", where, err, out)
		return
	}
	out, err := exec.Command(goTool, "list", "-deps", "./"+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "redis") && !strings.Contains(b, "redisstore") {
			t.Errorf("%s (a program without Redis) links %s", where, pkg)
		}
	}
}

// fenced returns the bodies of md's code blocks fenced as lang.
func fenced(md, lang string) []string {
	var out []string
	open := "```" + lang + "\n"
	for {
		i := strings.Index(md, open)
		if i < 0 {
			return out
		}
		md = md[i+len(open):]
		j := strings.Index(md, "\n```")
		if j < 0 {
			return out
		}
		out = append(out, md[:j+1])
		md = md[j+4:]
	}
}

// splitImports takes an excerpt's leading import group apart.
func splitImports(b string) (imports []string, code string) {
	if !strings.HasPrefix(b, "import (") {
		return nil, b
	}
	end := strings.Index(b, "\n)")
	for _, l := range strings.Split(b[len("import ("):end], "\n") {
		if l = strings.TrimSpace(l); l != "" {
			imports = append(imports, l)
		}
	}
	return imports, b[end+2:]
}

// foldLines returns the non-blank lines of s, trimmed, runs of spaces and
// tabs folded to one space.
func foldLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// inOrder reports whether the lines of part stand consecutively in all.
func inOrder(part, all []string) bool {
	for i := 0; i+len(part) <= len(all); i++ {
		match := true
		for j := range part {
			if all[i+j] != part[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// TestDeclarationFiles: every YAML block of docs/declaration.md is a whole
// declaration file, which loads, validates and builds a Middleware as the
// Go excerpt beside it does.
func TestDeclarationFiles(t *testing.T) {
	blocks := fenced(pages(t)["docs/declaration.md"], "yaml")
	if len(blocks) < 2 {
		t.Fatalf("%d YAML blocks in docs/declaration.md", len(blocks))
	}
	for i, b := range blocks {
		file := filepath.Join(t.TempDir(), "site.yaml")
		if err := os.WriteFile(file, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		site, lines, err := config.LoadSite(file)
		if err != nil {
			t.Errorf("docs/declaration.md YAML block %d: %v", i+1, err)
			continue
		}
		if _, err := agentready.New(site); err != nil {
			t.Errorf("docs/declaration.md YAML block %d: %v", i+1, lines.Locate(err))
		}
	}
}

// TestREADMETestCommand: the README's test command is the one .ci/run
// runs under that name, and the README stays a page (issue 25: at most
// 400 lines).
func TestREADMETestCommand(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	const label = `echo "== README test command: `
	_, after, ok := strings.Cut(string(ci), label)
	if !ok {
		t.Fatalf(".ci/run has no %q line", label)
	}
	echoed, rest, _ := strings.Cut(after, "\"\n")
	run, _, _ := strings.Cut(rest, "\n")
	if run != echoed {
		t.Errorf(".ci/run says it runs %q and runs %q", echoed, run)
	}
	readme := pages(t)["README.md"]
	found := false
	for _, b := range fenced(readme, "sh") {
		for _, l := range strings.Split(b, "\n") {
			if cmd, _, _ := strings.Cut(l, "#"); strings.TrimSpace(cmd) == run {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no sh block of the README runs %q, the command .ci/run runs as the README's", run)
	}
	if n := strings.Count(readme, "\n"); n > 400 {
		t.Errorf("the README is %d lines; it is a page of at most 400, the rest is in docs/", n)
	}
}
