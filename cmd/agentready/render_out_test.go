package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderOut: render -out writes every document at the path it is
// served at, robots.txt included, byte for byte what render prints, and
// lists each with the Content-Type a static host must send.
func TestRenderOut(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	file := "testdata/verdict/good-appendix-a.yaml"
	if code := run([]string{"render", "-out", dir, file}, &out, &errb); code != 0 {
		t.Fatalf("render -out: %d %s", code, errb.String())
	}
	var printed bytes.Buffer
	if code := run([]string{"render", file}, &printed, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	for _, want := range []struct{ path, ctype string }{
		{".well-known/agents.txt", "text/plain; charset=utf-8"},
		{"agents.txt", "text/plain; charset=utf-8"},
		{".well-known/agents.json", "application/json; charset=utf-8"},
		{".well-known/agents.md", "text/markdown; charset=utf-8"},
		{"robots.txt", "text/plain; charset=utf-8"},
	} {
		b, err := os.ReadFile(filepath.Join(dir, want.path))
		if err != nil {
			t.Errorf("%s: %v", want.path, err)
			continue
		}
		if !strings.Contains(out.String(), filepath.Join(dir, want.path)+"\t"+want.ctype+"\n") {
			t.Errorf("%s is not listed with %s:\n%s", want.path, want.ctype, out.String())
		}
		if want.path != "robots.txt" && !bytes.Contains(printed.Bytes(), b) {
			t.Errorf("%s differs from what render prints", want.path)
		}
	}
	robots, _ := os.ReadFile(filepath.Join(dir, "robots.txt"))
	if !bytes.Contains(bytes.ToLower(robots), []byte("user-agent:")) {
		t.Errorf("robots.txt:\n%s", robots)
	}
}

// TestRenderOutRefusesClash: a document that needs a directory where a
// file stands is refused with its path, and nothing is written outside DIR.
func TestRenderOutRefusesClash(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".well-known"), []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"render", "-out", dir, "testdata/verdict/good-appendix-a.yaml"}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "/.well-known/agents.txt: ") {
		t.Fatalf("render -out over a file: %d %s", code, errb.String())
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := writeUnder(root, "../escape.txt", []byte("x")); err == nil {
		t.Error("writeUnder wrote outside its root")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); err == nil {
		t.Error("escape.txt exists beside DIR")
	}
}
