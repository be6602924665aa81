package agentready_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// clockReaders are the functions of package time that read the wall
// clock. Library code reads the time through internal/clock instead: a
// clock.Func for timestamps and expiries (WithClock's, verify.Options.Now,
// else the wall clock) or clock.Monotonic for waits (docs/operations.md,
// "Clocks"). A direct read is how a set clock was silently ignored before
// (the replay cache's wall clock, issue 32).
var clockReaders = map[string]bool{"Now": true, "Since": true, "Until": true}

// clockAllowed are the files that may read package time's clock: the
// clock helper itself.
var clockAllowed = map[string]bool{
	"internal/clock/clock.go": true,
}

// TestClockReads fails when library code (the non-test files of the
// library's modules, libraryModules: the command included) names
// time.Now, time.Since or time.Until outside clockAllowed, called or
// passed as a value, under any import name.
func TestClockReads(t *testing.T) {
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case path == ".":
				return nil
			case strings.HasPrefix(d.Name(), "."), d.Name() == "testdata", d.Name() == "node_modules":
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && !slices.Contains(libraryModules, filepath.ToSlash(path)) {
				return filepath.SkipDir // not the library's: examples, routertest, bench/compare, the e2e tests
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || clockAllowed[filepath.ToSlash(path)] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		reads, err := clockReads(path, src)
		if err != nil {
			return err
		}
		found = append(found, reads...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: read the time through internal/clock (a clock.Func for timestamps, clock.Monotonic for waits)", f)
	}
}

// clockReads returns the places in one file's source that name a
// clockReaders function of package time, as "file:line: time.Now".
func clockReads(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{} // what package time is called in this file
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != "time" {
			continue
		}
		switch {
		case imp.Name == nil:
			names["time"] = true
		case imp.Name.Name == ".":
			names["."] = true
		default:
			names[imp.Name.Name] = true
		}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && names[x.Name] && clockReaders[n.Sel.Name] {
				out = append(out, fset.Position(n.Pos()).String()+": "+x.Name+"."+n.Sel.Name)
			}
		case *ast.Ident:
			if names["."] && clockReaders[n.Name] {
				out = append(out, fset.Position(n.Pos()).String()+": "+n.Name+" (dot-imported time)")
			}
		}
		return true
	})
	return out, nil
}

// TestClockReadsCatches holds the checker to the spellings it must catch,
// and to what it must leave alone.
func TestClockReadsCatches(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; import "time"; var x = time.Now()`, 1},
		{`package p; import "time"; var f = time.Now`, 1},
		{`package p; import "time"; func f(t time.Time) (time.Duration, time.Duration) { return time.Since(t), time.Until(t) }`, 2},
		{`package p; import tm "time"; var x = tm.Now()`, 1},
		{`package p; import . "time"; var x = Now()`, 1},
		{`package p; import "time"; var d = time.Second; var u = time.Unix(0, 0)`, 0},
		{`package p; type c struct{}; func (c) Now() int { return 0 }; var time c; var x = time.Now()`, 0},
	} {
		got, err := clockReads("p.go", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.src, got, tc.want)
		}
	}
}
