// Package redistest gives tests a real Redis: never a mock.
//
// Start uses the server at $REDIS_ADDR when it is set, and otherwise starts
// a private redis-server (the Debian package's binary, found on PATH) on a
// free 127.0.0.1 port, with persistence off, in a temporary directory; the
// test's cleanup kills it by its pid. StartLocal always starts a private
// server, for tests that stop, pause and restart it.
//
// Without Redis the test is skipped, unless AGENTREADY_REQUIRE_REDIS=1 (set
// by .ci/run): then it fails, so that CI never passes by skipping.
//
// The package starts servers and links no Redis client: it lives in the
// library's module, whose go.mod requires no Redis code (the Redis client
// is redisstore's, a module of its own). A test makes its client with
// ContextTimeoutEnabled, as the stores require (redisstore's tests'
// redisClient).
package redistest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/testtools"

	"github.com/agentready/agentready/internal/clock"
)

// Environment variables the package reads.
const (
	// EnvAddr names an existing server (host:port) to use instead of
	// starting one.
	EnvAddr = "REDIS_ADDR"
	// EnvRequire, set to 1, turns "skipped for lack of Redis" into a
	// failure.
	EnvRequire = "AGENTREADY_REQUIRE_REDIS"
	// EnvFsync, set to "always", starts the private servers with
	// appendonly yes and appendfsync always: every write fsynced before
	// it is acknowledged.
	EnvFsync = "AGENTREADY_REDIS_FSYNC"
)

// startTimeout bounds how long a new server may take to answer PING.
const startTimeout = 10 * time.Second

// Server is a Redis server a test uses.
type Server struct {
	// Addr is the server's host:port.
	Addr string

	bin     string // redis-server binary; "" for an external server
	dir     string
	durable bool // appendonly yes, appendfsync always
	cluster bool // cluster-enabled yes
	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when cmd has been waited for
}

// Start returns the server at $REDIS_ADDR, or a private one as StartLocal
// does.
func Start(t testing.TB) *Server {
	t.Helper()
	if addr := os.Getenv(EnvAddr); addr != "" {
		if err := ping(addr, startTimeout); err != nil {
			t.Fatalf("redistest: %s=%s does not answer PING: %v", EnvAddr, addr, err)
		}
		return &Server{Addr: addr}
	}
	return StartLocal(t)
}

// StartLocal starts a private redis-server on a free 127.0.0.1 port and
// kills it when the test ends. Only a private server can be stopped,
// paused and restarted.
func StartLocal(t testing.TB) *Server {
	t.Helper()
	return startLocal(t, false)
}

// StartDurable is StartLocal with every write fsynced to an append-only
// file before it is acknowledged (appendonly yes, appendfsync always), so
// that Restart after Stop finds the data again: a crash of a Redis that
// must not lose an audit event. DEBUG SLEEP is enabled on it.
func StartDurable(t testing.TB) *Server {
	t.Helper()
	return startLocal(t, true)
}

func startLocal(t testing.TB, durable bool) *Server {
	t.Helper()
	return startServer(t, durable, false)
}

func startServer(t testing.TB, durable, cluster bool) *Server {
	t.Helper()
	if why := testtools.Redis(); why != "" {
		unavailable(t, why)
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	s := &Server{bin: bin, dir: t.TempDir(), durable: durable, cluster: cluster}
	t.Cleanup(func() { s.kill() })
	// A port found free may be taken before redis-server binds it: retry.
	var last error
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if last = s.start(); last == nil {
			return s
		}
	}
	t.Fatalf("redistest: starting redis-server: %v", last)
	return nil
}

// Required reports whether tests must not skip for lack of Redis.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

func unavailable(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("redistest: %s, and %s=1", why, EnvRequire)
	}
	t.Skipf("redistest: %s; skipped (set %s=1 to make this a failure)", why, EnvRequire)
}

// Prefix returns a key prefix no other test uses, so that tests sharing a
// server (an external one in particular) never see each other's keys. The
// keys are not deleted: stores' keys expire on their own, and a private
// server dies with its test.
func Prefix(t testing.TB) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := strings.NewReplacer("/", ".", " ", "_", "{", "(", "}", ")").Replace(t.Name())
	return "agentready-test:" + name + ":" + hex.EncodeToString(b[:]) + ":"
}

// Stop kills the server (SIGKILL, by its pid) and waits for it to exit:
// an abrupt outage, connections reset.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.mustLocal(t)
	s.kill()
}

// Restart starts the server again on the same port: with no data (a
// restarted cache), or with all of it for a server from StartDurable.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.mustLocal(t)
	s.kill()
	var err error
	// The port was ours a moment ago; redis-server sets SO_REUSEADDR, but a
	// slow exit can hold it briefly.
	for range 20 {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("redistest: restarting redis-server on %s: %v", s.Addr, err)
}

// Pause stops the server's process (SIGSTOP): connections stay open and
// new ones are accepted by the kernel, but nothing answers. This is a hung
// or overloaded Redis, which only timeouts can cut short.
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGSTOP)
}

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGCONT)
}

func (s *Server) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	s.mustLocal(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		t.Fatalf("redistest: %v: server not running", sig)
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("redistest: %v: %v", sig, err)
	}
}

func (s *Server) mustLocal(t testing.TB) {
	t.Helper()
	if s.bin == "" {
		t.Fatalf("redistest: the server at %s=%s is not ours to stop; use StartLocal", EnvAddr, s.Addr)
	}
}

func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	durability := []string{"--appendonly", "no"}
	if s.durable {
		durability = []string{"--appendonly", "yes", "--appendfsync", "always", "--enable-debug-command", "local"}
	} else if os.Getenv(EnvFsync) == "always" {
		// What a site that must not lose an audit event runs: every write
		// on disk before it is acknowledged.
		durability = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	if s.cluster {
		durability = append(durability, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000")
	}
	cmd := exec.Command(s.bin, append([]string{
		"--port", port, "--bind", "127.0.0.1",
		"--save", "",
		"--dir", s.dir, "--logfile", "",
		"--protected-mode", "no"}, durability...)...)
	cmd.Dir = s.dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	// Keep the last lines of its log for the error message; drain the
	// rest so the server never blocks on a full pipe.
	var logMu sync.Mutex
	var tail []string
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			logMu.Lock()
			tail = append(tail, sc.Text())
			if len(tail) > 5 {
				tail = tail[1:]
			}
			logMu.Unlock()
		}
		_ = cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	if err := waitPing(s.Addr, done); err != nil {
		s.kill()
		logMu.Lock()
		defer logMu.Unlock()
		return fmt.Errorf("%w; log: %s", err, strings.Join(tail, " / "))
	}
	return nil
}

// kill stops the process by its pid and waits for it; a paused process is
// killed too (SIGKILL needs no SIGCONT).
func (s *Server) kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-done
}

func waitPing(addr string, exited <-chan struct{}) error {
	deadline := clock.Monotonic().Add(startTimeout)
	for {
		select {
		case <-exited:
			return errors.New("redis-server exited")
		default:
		}
		err := ping(addr, 200*time.Millisecond)
		if err == nil {
			return nil
		}
		if clock.Monotonic().After(deadline) {
			return fmt.Errorf("no PONG from %s within %v: %w", addr, startTimeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping sends PING in the inline protocol and expects +PONG.
func ping(addr string, timeout time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(clock.Monotonic().Add(timeout))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Cluster is a Redis Cluster of private servers on 127.0.0.1.
type Cluster struct {
	// Addrs are the masters' host:port.
	Addrs []string
}

// StartCluster starts a Redis Cluster of n masters (3 or more), each a
// private redis-server on a free 127.0.0.1 port, joins them with
// redis-cli --cluster create and waits until the cluster is ok; the
// servers are killed when the test ends.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	if why := testtools.RedisCLI(); why != "" {
		unavailable(t, why)
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	c := &Cluster{}
	for range n {
		c.Addrs = append(c.Addrs, startServer(t, false, true).Addr)
	}
	args := append(append([]string{"--cluster", "create"}, c.Addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := clock.Monotonic().Add(startTimeout)
	for _, a := range c.Addrs {
		for {
			out, err := exec.Command(cli, "-h", "127.0.0.1", "-p", a[strings.LastIndexByte(a, ':')+1:], "cluster", "info").Output()
			if err == nil && strings.Contains(string(out), "cluster_state:ok") {
				break
			}
			if clock.Monotonic().After(deadline) {
				t.Fatalf("redistest: the cluster at %v is not ok after %v: %v %s", c.Addrs, startTimeout, err, out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return c
}
