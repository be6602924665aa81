package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envRunMain makes the test binary run the command itself (main), so that
// a test can start agentready as a process without building it.
const envRunMain = "AGENTREADY_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		// Every package is initialised here, earlysignal's included:
		// say so, for the test that sends SIGHUP from this instant on.
		fmt.Fprintln(os.Stderr, "agentready-test: initialised")
		main()
	}
	os.Exit(m.Run())
}

// agentreadyProcess is agentready run as a process with args.
func agentreadyProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), envRunMain+"=1")
	return c
}

// TestServeSIGHUPAtStart: SIGHUP sent to serve while it starts (from the
// moment its packages are initialised, over and over until the banner)
// neither kills it nor is lost: serve starts, answers, reloads, and ends
// with status 0 on SIGTERM. Before, a SIGHUP in its first ~20 ms ended it
// (status 129: the default action, the handler not yet installed).
func TestServeSIGHUPAtStart(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "upstream") }))
	defer up.Close()
	cmd := agentreadyProcess(t, "serve", "-config", upstreamSite, "-upstream", up.URL, "-addr", "127.0.0.1:0")
	banner, errLines := startServe(t, cmd)
	select {
	case l := <-errLines:
		if l != "agentready-test: initialised" {
			t.Fatalf("first line %q", l)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the process did not start")
	}
	sent := 0
	var line string
hup:
	for {
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatalf("after %d SIGHUPs: %v", sent, err)
		}
		sent++
		select {
		case line = <-banner:
			break hup
		case <-time.After(time.Millisecond):
		}
	}
	if !strings.HasPrefix(line, "agentready serve: 127.0.0.1:") {
		t.Fatalf("banner %q after %d SIGHUPs; stderr: %v", line, sent, drainLines(errLines))
	}
	addr := strings.Fields(strings.TrimPrefix(line, "agentready serve: "))[0]
	res, err := http.Get("http://" + addr + "/products")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("after the SIGHUPs: %d", res.StatusCode)
	}
	// The SIGHUPs sent while serve started are one reload, once started.
	deadline := time.After(10 * time.Second)
	for reloaded := false; !reloaded; {
		select {
		case l, ok := <-errLines:
			if !ok {
				t.Fatal("stderr closed before a reload was logged")
			}
			reloaded = strings.Contains(l, "declaration reloaded")
		case <-deadline:
			t.Fatal("no reload logged after the SIGHUPs")
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve ended with %v after %d SIGHUPs at start, want status 0", err, sent)
	}
	t.Logf("%d SIGHUPs sent while serve started", sent)
}

func drainLines(c <-chan string) []string {
	var out []string
	for {
		select {
		case l, ok := <-c:
			if !ok {
				return out
			}
			out = append(out, l)
		case <-time.After(100 * time.Millisecond):
			return out
		}
	}
}

// TestServeBannerAfterBind: the banner is printed once the listener is
// bound (a connection made when it is read is accepted), naming the bound
// address; an address that cannot be bound is an error and no banner.
func TestServeBannerAfterBind(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	cmd := agentreadyProcess(t, "serve", "-config", upstreamSite, "-upstream", up.URL, "-addr", "127.0.0.1:0", "-metrics", "127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(strings.TrimPrefix(line, "agentready serve: "))
	c, err := net.DialTimeout("tcp", f[0], time.Second)
	if err != nil {
		t.Fatalf("the banner %q names an address not accepting yet: %v", line, err)
	}
	c.Close()
	i := strings.Index(line, "metrics at http://")
	if i < 0 {
		t.Fatalf("the banner does not say where the metrics are: %q", line)
	}
	res, err := http.Get(strings.TrimSuffix(strings.TrimSpace(line[i+len("metrics at "):]), ")"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Contains(b, []byte("\ngo_goroutines ")) {
		t.Errorf("the metrics endpoint:\n%.300s", b)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()

	// The address is taken: an error, no banner.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out, errOut bytes.Buffer
	code := run([]string{"serve", "-config", upstreamSite, "-upstream", up.URL, "-addr", ln.Addr().String()}, &out, &errOut)
	if code != 1 || out.Len() != 0 || !strings.Contains(errOut.String(), "address already in use") {
		t.Errorf("a taken address: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// startServe starts cmd, an agentready serve process ended when the test
// ends, and returns its banner (the first line of its standard output,
// when it comes) and the lines of its standard error.
func startServe(t *testing.T, cmd *exec.Cmd) (banner <-chan string, errLines chan string) {
	t.Helper()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	errLines = make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errLines <- sc.Text()
		}
		close(errLines)
	}()
	b := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		b <- l
	}()
	return b, errLines
}
