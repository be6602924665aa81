package agentready_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// surfaceBudget is the most exported identifiers each public package may
// have: types, functions, methods of exported types, constants and
// variables (struct fields and interface methods are not counted), as
// ../shared/tools/surface counts them. Growing a package's surface is a
// decision: raise its number here in the same commit, and say why in the
// commit message. The whole library stays under 335 names (issue 23).
var surfaceBudget = map[string]int{
	".":                       36,  // + WithReport (issue 27), WithClock (issue 32), WithLiteralPathParameters and WithDecisionHeader (issue 33); + Gateway and WithGateway (issue 37): the seam the mcpgateway module serves a gateway through
	"mcpgateway":              1,   // Serve (issue 37)
	"audit":                   38,  // - PathParam, TargetMember, MaxParamsDepth: the middleware's, in internal/auditparams; Target an interface, so that no public field has an internal type (issue 34)
	"audit/audittest":         1,   // Run; its fixed data in internal/testing/auditdata (issue 34)
	"config":                  105, // + Tool, ToolAuth, DocResourceMetadata (issue 35); + Grant (issue 26); ParseFile (issue 34: a file with keys of a program's own; the file's schema is generated in internal/publish and cmd, not in config)
	"enforce":                 42,  // + the three Grade constants and RuleLinkPreview (issue 26), DenyHost and HeaderDecision (issue 33), DenyParams (issue 37)
	"metrics":                 6,   // - Decisions, DocumentsCounter: test accessors (issue 34)
	"ratelimit":               24,
	"ratelimit/ratelimittest": 2,
	"redisstore":              9,
	"report":                  9, // the live report of agents (issue 27); its JSON model in internal/reportview (issue 34); + Reloaded and Upstream (issue 36): serve tells the report what no decision carries, the last reload and the upstream's answers
	"session":                 24,
	"session/sessiontest":     1,
	"verify":                  16,
}

// maxSurface is the budget of the whole library.
const maxSurface = 335

// maxFileLines is the longest a non-test Go file may be.
const maxFileLines = 600

// TestSurfaceBudget counts the exported identifiers of every public
// package against surfaceBudget, and holds every file to maxFileLines and
// the library to the standard library's safe subset (no package unsafe).
func TestSurfaceBudget(t *testing.T) {
	counts := map[string]int{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch n := d.Name(); {
			case p != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules"):
				return filepath.SkipDir
			case n == "examples" || n == "bench" || n == "routertest":
				return filepath.SkipDir // modules of their own
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if n := strings.Count(string(src), "\n"); n > maxFileLines {
			t.Errorf("%s: %d lines; split it (at most %d, one purpose a file)", p, n, maxFileLines)
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == `"unsafe"` {
				t.Errorf("%s imports unsafe", p)
			}
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if pkg == "cmd/agentready" || slices.Contains(strings.Split(pkg, "/"), "internal") {
			return nil
		}
		f, err = parser.ParseFile(token.NewFileSet(), p, src, 0)
		if err != nil {
			return err
		}
		counts[pkg] += exported(f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for pkg, n := range counts {
		total += n
		budget, ok := surfaceBudget[pkg]
		switch {
		case !ok && n > 0:
			t.Errorf("package %s exports %d names and has no budget in surfaceBudget", pkg, n)
		case n > budget:
			t.Errorf("package %s exports %d names, budget %d", pkg, n, budget)
		}
	}
	if total > maxSurface {
		t.Errorf("the library exports %d names, budget %d", total, maxSurface)
	}
	t.Logf("%d exported names: %v", total, counts)
}

// exported counts f's exported identifiers.
func exported(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv != nil && !exportedReceiver(d.Recv.List[0].Type) {
				continue
			}
			n++
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						n++
					}
				case *ast.ValueSpec:
					for _, id := range s.Names {
						if id.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

func exportedReceiver(t ast.Expr) bool {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
