package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// releaseVersion is the version docs/releasing.md tags every published
// module at, and the one they require one another at.
const releaseVersion = "v0.1.0"

// publishedModules are the directories (relative to the repository's root)
// of the modules docs/releasing.md tags: the library, its Redis stores,
// its Prometheus metrics and the command.
var publishedModules = []string{"", "metrics", "redisstore", "mcpgateway", "cmd/agentready"}

// TestGoInstallRelease: once the tags of docs/releasing.md exist, go
// install github.com/agentready/agentready/cmd/agentready@v0.1.0 resolves,
// builds and installs a command that says it is v0.1.0. The tags are
// stood in for by a module proxy in a temporary directory (the GOPROXY
// protocol as files, file://), holding each published module at v0.1.0
// as the go command would make it from the tag: a zip of the files
// committed at HEAD (git archive, nested modules left out, by
// golang.org/x/mod/zip), its go.mod and its .info. The other modules come
// from this machine's module cache, which is laid out as a proxy, so
// nothing is fetched from the network; GOWORK=off and a fresh GOMODCACHE
// make the install resolve from those proxies alone, as a user's does.
//
// It tests HEAD, what the tags would name: uncommitted changes in the work
// tree are left out (and logged), so commit before trusting it.
func TestGoInstallRelease(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git, which makes the module zips from the committed tree: %v", err)
	}
	root := strings.TrimSpace(gitOut(t, ".", "rev-parse", "--show-toplevel"))
	rev := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD"))
	if dirty := gitOut(t, root, "status", "--porcelain", "--untracked-files=no"); dirty != "" {
		t.Logf("the work tree has uncommitted changes, which this test leaves out: it installs HEAD (%s)\n%s", rev, dirty)
	}
	tmp := t.TempDir()
	// A clone sharing the repository's objects: x/mod's zip wants a
	// .git directory at the root it is given, which a worktree (.git a
	// file) does not have. No checkout: git archive reads the commit.
	clone := filepath.Join(tmp, "repo")
	gitOut(t, tmp, "clone", "--quiet", "--shared", "--no-checkout", root, clone)
	commitTime, err := time.Parse(time.RFC3339, strings.TrimSpace(gitOut(t, clone, "show", "-s", "--format=%cI", rev)))
	if err != nil {
		t.Fatalf("the commit's time: %v", err)
	}

	proxy := filepath.Join(tmp, "proxy")
	for _, dir := range publishedModules {
		writeProxyModule(t, proxy, clone, rev, dir, commitTime)
	}

	// The go command's module cache is read-only: go clean -modcache
	// empties it before TempDir's removal (cleanups run last in, first
	// out).
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(goEnv(t, goTool, "GOMODCACHE"), "cache", "download")),
		// Our modules are served by no checksum database before they are
		// tagged, and the others are checked against the go.sum of the
		// installed module below; no lookup leaves the machine.
		"GONOSUMDB=github.com/agentready/agentready",
		"GOSUMDB=off",
		// No -mod flag, as a user's go install runs (this machine's
		// GOFLAGS set aside). -trimpath: the build cache then keys the
		// packages by module path and version, not by this run's fresh
		// GOMODCACHE, so a second run does not compile them all again.
		"GOFLAGS=-trimpath",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOPATH="+filepath.Join(tmp, "gopath"),
		"GOBIN="+filepath.Join(tmp, "bin"),
	)
	t.Cleanup(func() {
		cmd := exec.Command(goTool, "clean", "-modcache")
		cmd.Env, cmd.Dir = env, tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go clean -modcache: %v\n%s", err, out)
		}
	})
	cmd := exec.Command(goTool, "install", "github.com/agentready/agentready/cmd/agentready@"+releaseVersion)
	cmd.Env, cmd.Dir = env, tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		hint := ""
		if bytes.Contains(out, []byte("file://")) {
			hint = "\n(a module the release requires is missing from this machine's module cache: .ci/run's step \"the published modules' requirements\" downloads them)"
		}
		t.Fatalf("go install github.com/agentready/agentready/cmd/agentready@%s: %v\n%s%s", releaseVersion, err, out, hint)
	}
	bin := filepath.Join(tmp, "bin", "agentready")

	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || string(out) != "agentready "+releaseVersion+"\n" {
		t.Errorf("agentready version: %v, %q; want %q", err, out, "agentready "+releaseVersion+"\n")
	}
	decl := filepath.Join(root, "examples", "stdlib", "site.yaml")
	out, err = exec.Command(bin, "lint", decl).CombinedOutput()
	if err != nil || !strings.Contains(string(out), decl+": valid (draft-car, 2 capabilities, 2 agent policies)") {
		t.Errorf("agentready lint %s: %v\n%s", decl, err, out)
	}

	checkInstalledSums(t, filepath.Join(tmp, "modcache"), clone, rev)
}

// writeProxyModule writes the module in dir (relative to the repository's
// root, "" for the root) at releaseVersion into the proxy directory, in
// the layout of the GOPROXY protocol: $module/@v/{list,VERSION.info,
// VERSION.mod,VERSION.zip}. Its go.mod must hold no replace directive,
// which go install refuses in the module it installs and every user's
// build ignores in a dependency.
func writeProxyModule(t *testing.T, proxy, repo, rev, dir string, commitTime time.Time) {
	t.Helper()
	modPath := path.Join("github.com/agentready/agentready", dir)
	escaped, err := module.EscapePath(modPath)
	if err != nil {
		t.Fatal(err)
	}
	vdir := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod := []byte(gitOut(t, repo, "show", rev+":"+path.Join(dir, "go.mod")))
	f, err := modfile.Parse(path.Join(dir, "go.mod"), gomod, nil)
	if err != nil {
		t.Fatalf("%s/go.mod at HEAD: %v", dir, err)
	}
	if f.Module == nil || f.Module.Mod.Path != modPath {
		t.Fatalf("%s/go.mod at HEAD names the module %v, want %s", dir, f.Module, modPath)
	}
	for _, r := range f.Replace {
		t.Errorf("%s/go.mod at HEAD replaces %s: go install %s@%s refuses it", dir, r.Old.Path, modPath, releaseVersion)
	}
	for _, r := range f.Require {
		if strings.HasPrefix(r.Mod.Path, "github.com/agentready/agentready") && r.Mod.Version != releaseVersion {
			t.Errorf("%s/go.mod at HEAD requires %s, not the release %s", dir, r.Mod, releaseVersion)
		}
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{releaseVersion, commitTime.UTC()})
	if err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(vdir, releaseVersion+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zf.Close()
	if err := modzip.CreateFromVCS(zf, module.Version{Path: modPath, Version: releaseVersion}, repo, rev, dir); err != nil {
		t.Fatalf("the zip of %s: %v", modPath, err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":                   []byte(releaseVersion + "\n"),
		releaseVersion + ".mod":  gomod,
		releaseVersion + ".info": info,
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkInstalledSums: every module the install downloaded, other than
// ours, has the hashes cmd/agentready's go.sum records (the checksum
// database was off: this is what stands in for it), and the install
// fetched the zip of each published module.
func checkInstalledSums(t *testing.T, modcache, repo, rev string) {
	t.Helper()
	sums := map[string]bool{}
	for _, line := range strings.Split(gitOut(t, repo, "show", rev+":cmd/agentready/go.sum"), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			sums[strings.Join(f, " ")] = true
		}
	}
	download := filepath.Join(modcache, "cache", "download")
	checked, ours := 0, 0
	err := filepath.WalkDir(download, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".ziphash") {
			return err
		}
		rel, err := filepath.Rel(download, p)
		if err != nil {
			return err
		}
		escPath, file := path.Split(filepath.ToSlash(rel))
		modPath, err := module.UnescapePath(strings.TrimSuffix(escPath, "/@v/"))
		if err != nil {
			return err
		}
		version := strings.TrimSuffix(file, ".ziphash")
		if strings.HasPrefix(modPath, "github.com/agentready/agentready") {
			ours++
			return nil
		}
		h, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if entry := modPath + " " + version + " " + string(bytes.TrimSpace(h)); !sums[entry] {
			t.Errorf("the install downloaded %s@%s with the hash %s, which cmd/agentready/go.sum does not record", modPath, version, bytes.TrimSpace(h))
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ours != len(publishedModules) || checked < 10 {
		t.Errorf("the install downloaded %d of our modules (want %d) and %d others: the walk is wrong", ours, len(publishedModules), checked)
	}
}

// gitOut runs git in dir and returns its standard output; a failure fails
// the test with what git printed.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

// goEnv returns one of the go command's settings, as this test's go sees it.
func goEnv(t *testing.T, goTool, name string) string {
	t.Helper()
	out, err := exec.Command(goTool, "env", name).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env %s: %v %q", name, err, out)
	}
	return strings.TrimSpace(string(out))
}
