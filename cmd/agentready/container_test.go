//go:build linux

package main

import (
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestContainerImage: the repository's Containerfile, built by podman from
// the static command (CGO_ENABLED=0) and the host's CA bundle, runs serve
// as nobody with nothing but the declaration mounted and the addresses
// and the upstream (an HTTP server of this test on 127.0.0.1, the host's
// network shared) given as AGENTREADY_ variables: /healthz answers, a
// document comes from the declaration, an agent is refused by its rule
// and another is proxied to the upstream with the decision. The image
// and the container are removed at the end. Without podman the test
// skips, or fails under AGENTREADY_REQUIRE_CONTAINER=1 (.ci/run).
func TestContainerImage(t *testing.T) {
	podman, runtime, missing := testtools.Container()
	testtools.NeedContainer(t, missing)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}

	// The build context, as docs/operations.md makes it.
	buildDir := t.TempDir()
	build := exec.Command(goTool, "build", "-trimpath", "-o", filepath.Join(buildDir, "agentready"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	assertStatic(t, filepath.Join(buildDir, "agentready"))
	copyFile(t, testtools.CABundle, filepath.Join(buildDir, "ca-certificates.crt"))

	suffix := make([]byte, 6)
	rand.Read(suffix)
	name := "agentready-test-" + hex.EncodeToString(suffix)
	image := "localhost/" + name + ":test"
	pod := func(args ...string) (string, error) {
		if runtime != "" {
			args = append([]string{"--runtime", runtime}, args...)
		}
		out, err := exec.Command(podman, args...).CombinedOutput()
		return string(out), err
	}
	// Cleanups run last in, first out: the container goes, then the image.
	t.Cleanup(func() {
		if out, err := pod("rmi", "--force", image); err != nil {
			t.Errorf("podman rmi %s: %v\n%s", image, err, out)
		}
	})
	if out, err := pod("build", "--pull=never", "--file", filepath.Join(root, "Containerfile"), "--tag", image, buildDir); err != nil {
		t.Fatalf("podman build: %v\n%s", err, out)
	}
	if out, err := pod("image", "inspect", "--format", "{{.Config.User}} {{.Size}}", image); err != nil || !strings.HasPrefix(out, "65534:65534 ") {
		t.Errorf("the image's user and size: %v %q, want 65534:65534 (nobody)", err, out)
	} else {
		t.Logf("image %s: user and size in bytes %s", image, strings.TrimSpace(out))
	}

	var mu sync.Mutex
	var decisions []string // Agentready-Decision as the upstream got it
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		decisions = append(decisions, r.Header.Get("Agentready-Decision"))
		mu.Unlock()
		fmt.Fprintf(w, "upstream: %s", r.URL.RequestURI())
	}))
	defer up.Close()

	addr := "127.0.0.1:" + freePort(t)
	health := "127.0.0.1:" + freePort(t)
	args := []string{"run", "--detach", "--name", name, "--network", "host"}
	args = append(args, ulimits(t)...)
	args = append(args,
		"--volume", filepath.Join(root, "examples", "stdlib", "site.yaml")+":/etc/agentready/site.yaml:ro",
		"--env", "AGENTREADY_UPSTREAM="+up.URL,
		"--env", "AGENTREADY_ADDR="+addr,
		"--env", "AGENTREADY_HEALTH_ADDR="+health,
		image)
	t.Cleanup(func() {
		if out, err := pod("rm", "--force", "--time", "5", name); err != nil {
			t.Errorf("podman rm %s: %v\n%s", name, err, out)
		}
	})
	if out, err := pod(args...); err != nil {
		t.Fatalf("podman run: %v\n%s", err, out)
	}
	logs := func() string {
		out, _ := pod("logs", name)
		return out
	}

	// serve starts in well under a second; the minute is for a loaded
	// machine, never waited for when it answers.
	deadline := time.Now().Add(time.Minute)
	for {
		code, _, _ := fetch(t, "http://"+health+"/healthz", "")
		if code == http.StatusOK {
			break
		}
		if state, _ := pod("inspect", "--format", "{{.State.Status}}", name); strings.TrimSpace(state) != "running" || time.Now().After(deadline) {
			t.Fatalf("the container (%s) does not answer /healthz at %s; its logs:\n%s", strings.TrimSpace(state), health, logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, _, body := fetch(t, "http://"+health+"/readyz", ""); code != http.StatusOK {
		t.Errorf("/readyz: %d %s", code, body)
	}

	const gptBot = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	if code, ctype, body := fetch(t, "http://"+addr+"/agents.txt", ""); code != http.StatusOK || !strings.HasPrefix(ctype, "text/plain") || !strings.Contains(body, "Site-Name: Outdoor Supply Co.") {
		t.Errorf("/agents.txt: %d %s\n%s", code, ctype, body)
	}
	if code, ctype, body := fetch(t, "http://"+addr+"/admin/users", gptBot); code != http.StatusForbidden || ctype != "application/problem+json" || !strings.Contains(body, `"rule":"Disallow: /admin/"`) {
		t.Errorf("GPTBot at /admin/users: %d %s\n%s", code, ctype, body)
	}
	if code, _, body := fetch(t, "http://"+addr+"/api/search?q=tent", gptBot); code != http.StatusOK || body != "upstream: /api/search?q=tent" {
		t.Errorf("GPTBot at /api/search: %d %q, want the upstream's answer", code, body)
	}
	mu.Lock()
	if len(decisions) != 1 || !strings.Contains(decisions[0], `capability="product-search"`) {
		t.Errorf("the upstream got %d requests with Agentready-Decision %q, want the one proxied with its capability", len(decisions), decisions)
	}
	mu.Unlock()
	if l := logs(); !strings.Contains(l, "agentready serve: "+addr+" in front of "+up.URL+" (declaration /etc/agentready/site.yaml") {
		t.Errorf("serve's banner is not in the container's logs:\n%s", l)
	}
}

// ulimits are podman's --ulimit flags for the container: its open files
// and processes at most this process's hard limits. podman as root asks
// the runtime for 1048576 of each by default, which a host without
// CAP_SYS_RESOURCE (this project's VMs) refuses: "setrlimit `RLIMIT_NOFILE`:
// Operation not permitted".
func ulimits(t *testing.T) []string {
	t.Helper()
	var nofile, nproc syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Getrlimit(unix.RLIMIT_NPROC, &nproc); err != nil {
		t.Fatal(err)
	}
	// serve runs one process of a few dozen threads; podman itself runs
	// under at most 32768 processes (measured), whatever its parent's.
	files, procs := min(nofile.Max, 1<<20), min(nproc.Max, 4096)
	return []string{"--ulimit", fmt.Sprintf("nofile=%d:%d", files, files), "--ulimit", fmt.Sprintf("nproc=%d:%d", procs, procs)}
}

// assertStatic fails t unless the ELF file at p is linked statically: no
// program interpreter and no shared library, as FROM scratch needs.
func assertStatic(t *testing.T, p string) {
	t.Helper()
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Fatalf("%s has a program interpreter: not static", p)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Fatalf("%s imports %v (%v): not static", p, libs, err)
	}
}

// copyFile copies the file src to dst, readable by all.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fetch GETs url with the User-Agent ua ("" for Go's) and returns the
// status, the Content-Type and the body; a failed exchange is status 0.
func fetch(t *testing.T, url, ua string) (code int, ctype, body string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ua != "" {
		req.Header.Set("User-Agent", ua)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err.Error()
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}
