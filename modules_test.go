package agentready_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNoRedisInTheCore: a program that does not use Redis links no Redis
// client, nor, without package metrics, the Prometheus client. (The
// agentready command links both: its serve takes -redis and -metrics.) The Redis stores live in package redisstore, which only the
// programs that use them import.
func TestNoRedisInTheCore(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	core := []string{".", "./config", "./internal/policy", "./internal/publish/...", "./enforce", "./ratelimit", "./session", "./audit", "./verify"}
	out, err := exec.Command(goTool, append([]string{"list", "-deps"}, core...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "redis") || strings.Contains(pkg, "prometheus") {
			t.Errorf("the core depends on %s", pkg)
		}
	}
}

// TestGoModHoldsOnlyWhatTheLibraryUses: every module the library's go.mod
// requires directly is imported by its packages or their tests. Examples,
// router tests and peer benchmarks are modules of their own (examples,
// routertest, bench/compare), so chi, httprate and the other peers never
// become dependencies of a program that imports agentready.
func TestGoModHoldsOnlyWhatTheLibraryUses(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	used := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		used[m] = true
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	direct := 0
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) != 2 || !strings.Contains(f[0], ".") || strings.Contains(line, "// indirect") || f[0] == "module" || f[0] == "go" {
			continue
		}
		direct++
		if !used[f[0]] {
			t.Errorf("go.mod requires %s, which no package or test of the library imports", f[0])
		}
	}
	if direct < 5 {
		t.Fatalf("found %d direct requirements in go.mod: the parser is wrong", direct)
	}
	for _, peer := range []string{"github.com/go-chi/chi/v5", "github.com/go-chi/httprate", "github.com/temoto/robotstxt"} {
		if strings.Contains(string(mod), peer) {
			t.Errorf("go.mod mentions %s, which belongs to the examples or the benchmarks", peer)
		}
	}
}

// libraryModules are the directories of the modules a user installs: the
// library, its Redis stores, its Prometheus metrics and the command. The
// tree's other modules (examples, routertest, bench/compare, the
// end-to-end tests, the A2A schema generator) are never a user's
// dependency.
var libraryModules = []string{".", "redisstore", "metrics", "mcpgateway", "cmd/agentready"}

// release is the version the tree's modules require the library's at,
// which go.work replaces with the tree's own copies: the release being
// made, or the last one made (docs/releasing.md).
const release = "v0.1.0"

// isLibraryModule reports whether a module path is one of libraryModules'.
func isLibraryModule(p string) bool {
	for _, dir := range libraryModules {
		if p == path.Join("github.com/agentready/agentready", dir) {
			return true
		}
	}
	return false
}

// modules returns the directory of every go.mod in the tree, relative to
// the root ("." for the library), outside testdata and node_modules.
func modules(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			dirs = append(dirs, filepath.ToSlash(filepath.Dir(p)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 5 || !slices.Contains(dirs, ".") {
		t.Fatalf("found the modules %v: the walk is wrong", dirs)
	}
	return dirs
}

// pattern is the package pattern that names every package of the module
// in dir: ./... for the library (which, under go.work, names no nested
// module), ./dir/... for the others.
func pattern(dir string) string {
	if dir == "." {
		return "./..."
	}
	return "./" + dir + "/..."
}

// TestEveryModuleNamed: a module missing from the README's test command,
// from .ci/run or from go.work is a module whose tests nobody runs (./...
// at the root stops at a nested go.mod). The README's command must name
// every module's pattern, .ci/run must run that very command and list
// every module in its modules (the gofmt, vet and -race passes), and
// go.work must use every module, and replace no module but the library's
// own at their release.
func TestEveryModuleNamed(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	command := ""
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "go test ./... ") {
			command, _, _ = strings.Cut(line, "   #") // the comment after it
			command = strings.TrimSpace(command)
			break
		}
	}
	if command == "" {
		t.Fatal("README.md has no line starting with the test command (go test ./... )")
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "\n"+command+"\n") {
		t.Errorf(".ci/run does not run the README's test command %q on a line of its own", command)
	}
	ciModules := ""
	for _, line := range strings.Split(string(ci), "\n") {
		if v, ok := strings.CutPrefix(line, "modules="); ok {
			ciModules = strings.Trim(v, `"`)
		}
	}
	if ciModules == "" {
		t.Error(`.ci/run has no modules="..." line`)
	}
	work, err := exec.Command(goTool(t), "work", "edit", "-json").Output()
	if err != nil {
		t.Fatalf("go work edit -json: %v", err)
	}
	var ws struct {
		Use     []struct{ DiskPath string }
		Replace []struct {
			Old struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(work, &ws); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, u := range ws.Use {
		used[path.Clean(u.DiskPath)] = true
	}
	for _, r := range ws.Replace {
		if r.Old.Version != release || !isLibraryModule(r.Old.Path) {
			t.Errorf("go.work replaces %s at %q: only the library's own modules at %s, the version they require one another at", r.Old.Path, r.Old.Version, release)
		}
	}
	commandFields := strings.Fields(command)
	ciFields := strings.Fields(ciModules)
	for _, dir := range modules(t) {
		p := pattern(dir)
		if !slices.Contains(commandFields, p) {
			t.Errorf("the README's test command does not name the module %s (%s)", dir, p)
		}
		if !slices.Contains(ciFields, p) {
			t.Errorf(".ci/run's modules do not name the module %s (%s)", dir, p)
		}
		if !used[dir] {
			t.Errorf("go.work does not use the module %s", dir)
		}
	}
}

// TestLibraryModulesHaveNoReplace: go install
// github.com/agentready/agentready/cmd/agentready@version refuses a
// go.mod with a replace directive, and a user's build ignores the
// replaces of its dependencies: the modules a user installs resolve one
// another through go.work here, and through tagged versions for users.
func TestLibraryModulesHaveNoReplace(t *testing.T) {
	for _, dir := range libraryModules {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "replace") {
				t.Errorf("%s/go.mod: %s", dir, line)
			}
		}
	}
}

// TestModulesRequireTheRelease: every go.mod of the tree requires the
// library's modules at release, the version go.work replaces: a
// requirement left at another version would resolve from a proxy (or not
// at all) rather than from the tree, and a tagged cmd/agentready would
// install a library other than the one tagged with it.
func TestModulesRequireTheRelease(t *testing.T) {
	required := 0
	for _, dir := range modules(t) {
		out, err := exec.Command(goTool(t), "mod", "edit", "-json", filepath.Join(dir, "go.mod")).Output()
		if err != nil {
			t.Fatalf("go mod edit -json %s/go.mod: %v", dir, err)
		}
		var mod struct {
			Require []struct{ Path, Version string }
		}
		if err := json.Unmarshal(out, &mod); err != nil {
			t.Fatal(err)
		}
		for _, r := range mod.Require {
			if !isLibraryModule(r.Path) {
				continue
			}
			required++
			if r.Version != release {
				t.Errorf("%s/go.mod requires %s %s, not the release %s", dir, r.Path, r.Version, release)
			}
		}
	}
	if required < 10 {
		t.Fatalf("found %d requirements of the library's modules: the walk is wrong", required)
	}
}

// TestLibraryGraphHasNoRedis: the library's own module graph (go.work
// set aside, as a user's build sees it) holds no Redis or Prometheus
// module, so a program that imports agentready downloads neither; they
// are redisstore's and metrics' requirements. Its packages and their
// tests build from its go.mod alone: a test of the library that imports
// redisstore or metrics builds under go.work but not for anyone else, and
// belongs in internal/testing/e2e.
func TestLibraryGraphHasNoRedis(t *testing.T) {
	for _, args := range [][]string{
		{"list", "-m", "all"},
		{"list", "-deps", "-test", "-f", "{{.ImportPath}}", "./..."},
	} {
		cmd := exec.Command(goTool(t), args...)
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GOWORK=off go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		for _, m := range strings.Fields(string(out)) {
			if redisOrPrometheus(m) {
				t.Errorf("GOWORK=off go %s: the library's module holds %s", strings.Join(args, " "), m)
			}
		}
	}
}

// redisOrPrometheus reports whether a module or package path is a Redis
// client's, redis_rate's or Prometheus's (internal/testing/redistest,
// which starts servers, is none of them).
func redisOrPrometheus(p string) bool {
	for _, prefix := range []string{"github.com/redis/", "github.com/go-redis/", "github.com/prometheus/"} {
		if strings.HasPrefix(strings.Trim(p, "[]"), prefix) {
			return true
		}
	}
	return false
}

// goTool is the go command's path.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	return p
}
