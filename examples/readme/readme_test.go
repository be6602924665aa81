package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// TestREADMEGoBlocks holds the README's Go to compiling code: a block that
// is a whole program ("package main") is built as it stands; any other
// block is an excerpt, and its lines (blank lines aside, spacing folded)
// must stand in order in one function of examples/readme/main.go, which
// the test suite builds, with its imports imported there.
func TestREADMEGoBlocks(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	example := foldLines(string(src))
	blocks := goBlocks(string(readme))
	if len(blocks) < 8 {
		t.Fatalf("%d Go blocks found in the README", len(blocks))
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	for i, b := range blocks {
		if strings.HasPrefix(b, "package main") {
			dir, err := os.MkdirTemp(".", "_readme_block_")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(goTool, "vet", "./"+dir).CombinedOutput(); err != nil {
				t.Errorf("README Go block %d (a program) does not build: %v\n%s", i+1, err, out)
			}
			// The quick start links no Redis client: only programs that
			// import redisstore do.
			out, err := exec.Command(goTool, "list", "-deps", "./"+dir).CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, out)
			}
			for _, pkg := range strings.Fields(string(out)) {
				if strings.Contains(pkg, "redis") && !strings.Contains(b, "redisstore") {
					t.Errorf("README Go block %d (a program without Redis) links %s", i+1, pkg)
				}
			}
			continue
		}
		imports, code := splitImports(b)
		for _, imp := range imports {
			if !strings.Contains(string(src), imp) {
				t.Errorf("README Go block %d imports %s, which examples/readme does not", i+1, imp)
			}
		}
		if !inOrder(foldLines(code), example) {
			t.Errorf("README Go block %d is not an excerpt of examples/readme/main.go:\n%s", i+1, code)
		}
	}
}

// goBlocks returns the README's ```go blocks.
func goBlocks(md string) []string { return fenced(md, "go") }

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

// TestREADMEDeclarationFile: the declaration file the README shows loads,
// validates and builds a Middleware as its Go block does.
func TestREADMEDeclarationFile(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Declaration files\n")
	blocks := fenced(section, "yaml")
	if len(blocks) == 0 {
		t.Fatal("no YAML block under \"Declaration files\"")
	}
	file := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(file, []byte(blocks[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	site, lines, err := config.LoadSite(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agentready.New(site); err != nil {
		t.Errorf("the README's declaration file: %v", lines.Locate(err))
	}
}
