package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// link is a Markdown link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks: every link of the README and docs/ to a file of the
// repository names one that exists, and every #fragment a heading of the
// page it points to (as GitHub makes a heading's anchor), so that moving
// a section cannot leave a link behind.
func TestDocsLinks(t *testing.T) {
	all := pages(t)
	anchors := map[string]map[string]bool{}
	for page, md := range all {
		anchors[page] = headingAnchors(md)
	}
	for page, md := range all {
		for _, m := range link.FindAllStringSubmatch(outsideCode(md), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = path.Clean(path.Join(path.Dir(page), file))
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s links to %s: %v", page, target, err)
					continue
				}
			}
			if frag == "" {
				continue
			}
			a, ok := anchors[dest]
			if !ok {
				t.Errorf("%s links to %s: a fragment of a page that is not the README or in docs/", page, target)
				continue
			}
			if !a[frag] {
				t.Errorf("%s links to %s: %s has no heading with anchor %q", page, target, dest, frag)
			}
		}
	}
}

// TestCodeCitesDocs: a docs/ page that a Go comment or a test names
// exists, so that code comments pointing to the documentation follow it
// when it moves.
func TestCodeCitesDocs(t *testing.T) {
	cite := regexp.MustCompile(`docs/[a-z0-9-]+\.md`)
	// Pages of other repositories the code cites: the MCP server card
	// extension's docs/discovery.md and A2A's docs/specification.md.
	foreign := map[string]bool{"docs/discovery.md": true, "docs/specification.md": true}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, c := range cite.FindAllString(string(b), -1) {
			if foreign[c] {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, c)); err != nil {
				t.Errorf("%s cites %s, which does not exist", p, c)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// outsideCode returns md without its fenced code blocks and inline code,
// where brackets are not links.
func outsideCode(md string) string {
	var b strings.Builder
	fence := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		parts := strings.Split(l, "`")
		for i := 0; i < len(parts); i += 2 {
			b.WriteString(parts[i])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// headingAnchors returns the anchors GitHub gives md's headings: the text
// in lower case, spaces as hyphens, punctuation other than '-' and '_'
// dropped; a repeated anchor gets -1, -2, ...
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var s strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				s.WriteRune(r)
			case r == ' ':
				s.WriteByte('-')
			}
		}
		a := s.String()
		if n := seen[a]; n > 0 {
			seen[a] = n + 1
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}
