package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestREADMEFirstHour runs the README's first hour as a reader would: it
// builds the section's program, starts it, runs each "$ " command of the
// section's first console block with bash and curl, the program's address
// in place of localhost:8080, and compares what they print with the lines
// the README shows under them. The second console block is run so
// against the demo (examples/stdlib), in one shell, as a reader types it.
func TestREADMEFirstHour(t *testing.T) {
	testtools.Need(t, testtools.Programs("bash", "curl"))
	_, section, ok := strings.Cut(pages(t)["README.md"], "\n## The first hour\n")
	if !ok {
		t.Fatal(`the README has no "## The first hour" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	programs, transcripts := fenced(section, "go"), fenced(section, "console")
	if len(programs) != 1 || len(transcripts) != 2 {
		t.Fatalf("the first hour has %d Go blocks and %d console blocks, want one program, its transcript and the demo's", len(programs), len(transcripts))
	}
	t.Run("demo", func(t *testing.T) { demoTranscript(t, transcripts[1]) })

	dir := t.TempDir()
	build, err := os.MkdirTemp(".", "_readme_block_")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(build)
	if err := os.WriteFile(filepath.Join(build, "main.go"), []byte(programs[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "firsthour")
	if out, err := exec.Command("go", "build", "-o", bin, "./"+build).CombinedOutput(); err != nil {
		t.Fatalf("the first hour's program: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-addr", addr)
	var started syncBuffer
	cmd.Stderr = &started
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitFor(t, "http://"+addr+"/")
	// It says where it listens before it does: by the time it answers,
	// the line is written.
	if !strings.Contains(started.String(), "http://"+addr) {
		t.Errorf("the first hour's program printed %q when it started, want where it listens (http://%s)", started.String(), addr)
	}

	for _, step := range steps(transcripts[0]) {
		run := strings.ReplaceAll(step.command, "localhost:8080", addr)
		out, err := exec.Command("bash", "-c", run).Output()
		if err != nil {
			t.Errorf("$ %s: %v", step.command, err)
			continue
		}
		if got := trimLines(string(out)); got != trimLines(step.output) {
			t.Errorf("$ %s\nprints\n%s\nthe README shows\n%s", step.command, got, step.output)
		}
	}
}

// demoTranscript builds and starts the demo, runs the commands of block
// in one bash (a variable or function one defines is the next one's),
// and compares what each prints with the lines the README shows.
func demoTranscript(t *testing.T, block string) {
	testtools.Need(t, testtools.Programs("jq"))
	bin := filepath.Join(t.TempDir(), "stdlib")
	if out, err := exec.Command("go", "build", "-o", bin, "../stdlib").CombinedOutput(); err != nil {
		t.Fatalf("the demo: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-addr", addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitFor(t, "http://"+addr+"/")

	const mark = "--- agentready first hour: next command ---"
	var script strings.Builder
	all := steps(block)
	for _, st := range all {
		script.WriteString(strings.ReplaceAll(st.command, "localhost:8080", addr) + "\necho '" + mark + "'\n")
	}
	out, err := exec.Command("bash", "-c", script.String()).Output()
	if err != nil {
		t.Fatalf("the demo's commands: %v\n%s", err, out)
	}
	printed := strings.Split(string(out), mark+"\n")
	if len(printed) != len(all)+1 {
		t.Fatalf("the demo's commands printed %q", out)
	}
	for i, st := range all {
		if got := trimLines(printed[i]); got != trimLines(st.output) {
			t.Errorf("$ %s\nprints\n%s\nthe README shows\n%s", st.command, got, st.output)
		}
	}
}

type step struct{ command, output string }

// syncBuffer is a bytes.Buffer the program's output is copied into while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// steps reads a console block: a line starting "$ " is a command, the
// lines under it until the next command what it prints.
func steps(block string) []step {
	var out []step
	for _, l := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if c, ok := strings.CutPrefix(l, "$ "); ok {
			out = append(out, step{command: c})
		} else if len(out) > 0 {
			out[len(out)-1].output += l + "\n"
		}
	}
	return out
}

// trimLines drops trailing spaces from each line and trailing newlines.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// freeAddr returns a loopback address no one listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitFor waits until url answers, for at most 30 seconds.
func waitFor(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
