package enforcer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// TestStageOrder pins the order of the stages: who the client is before
// what it asks for, the capability's stages after the target's, the
// session check right after the limits (a later change sends the two to
// the store together). Moving a stage, or adding one, changes this list
// on purpose.
func TestStageOrder(t *testing.T) {
	want := []string{"classify", "probe", "preview", "grade", "host", "target", "access",
		"tool", "capability", "auth", "limits", "params", "mcpSession", "session"}
	if got := stages(t, "chain"); !slices.Equal(got, want) {
		t.Errorf("stages %q,\nwant   %q", got, want)
	}
}

// stages lists the stages function fn of chain.go calls on the scope, in
// order, those of a function it calls on the scope inlined.
func stages(t *testing.T, fn string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "chain.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var decl *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == fn {
			decl = fd
		}
	}
	if decl == nil {
		t.Fatalf("chain.go has no func %s", fn)
	}
	var names []string
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if id, isID := call.Args[0].(*ast.Ident); !ok || !isID || id.Name != "s" {
			return true
		}
		if recv, ok := sel.X.(*ast.Ident); !ok || recv.Name != "e" {
			return true
		}
		if sel.Sel.Name == "forCapability" {
			names = append(names, stages(t, "forCapability")...)
		} else {
			names = append(names, sel.Sel.Name)
		}
		return true
	})
	return names
}

// TestBindingCompletesWithCapabilityStages: a route binding behind Wrap
// runs the capability's stages, and the session check, on Wrap's scope.
func TestBindingCompletesWithCapabilityStages(t *testing.T) {
	if got, want := stages(t, "forCapability"), []string{"tool", "capability", "auth", "limits", "params", "mcpSession"}; !slices.Equal(got, want) {
		t.Errorf("forCapability runs %q, want %q", got, want)
	}
}
