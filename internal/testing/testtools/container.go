package testtools

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// EnvRequireContainer names the variable (set by .ci/run) that turns the
// container test's skip into a failure.
const EnvRequireContainer = "AGENTREADY_REQUIRE_CONTAINER"

// CABundle is the host's CA certificates, Debian's ca-certificates
// package's bundle, which the image (the repository's Containerfile)
// copies so that serve can reach an https upstream or Redis over TLS.
const CABundle = "/etc/ssl/certs/ca-certificates.crt"

// Container returns podman's path and the OCI runtime to give it, and
// says what is missing to build the repository's Containerfile and run
// it, "" when nothing is. The runtime is runc when it is installed: crun
// 1.8.1 (Debian 12's, podman's default) refuses to start any container
// on a host whose cgroup v1 hierarchies leave a controller to cgroup v2
// ("cgroups in hybrid mode not supported, drop all controllers from
// cgroupv2"), as this project's machines do, where runc 1.1 starts it.
// Without runc it is "", podman's default, unless the host is such a one.
func Container() (podman, runtime, missing string) {
	p, err := exec.LookPath("podman")
	if err != nil {
		return "", "", "podman is not on PATH (apt-get install podman runc)"
	}
	if _, err := os.Stat(CABundle); err != nil {
		return "", "", CABundle + " is missing (apt-get install ca-certificates)"
	}
	if r, err := exec.LookPath("runc"); err == nil {
		return p, r, ""
	}
	if b, err := os.ReadFile(hybridControllers); err == nil && len(bytes.TrimSpace(b)) > 0 {
		return "", "", "runc is not on PATH, and crun refuses this host's cgroups (v1 with " + string(bytes.TrimSpace(b)) + " in v2) (apt-get install runc)"
	}
	return p, "", ""
}

// hybridControllers lists the controllers cgroup v2 holds on a host that
// mounts cgroup v1 at /sys/fs/cgroup and v2 beside it (systemd's hybrid
// layout).
const hybridControllers = "/sys/fs/cgroup/unified/cgroup.controllers"

// NeedContainer skips or fails t, as EnvRequireContainer says, when
// missing is not "".
func NeedContainer(t testing.TB, missing string) {
	t.Helper()
	if missing == "" {
		return
	}
	if os.Getenv(EnvRequireContainer) == "1" {
		t.Fatalf("%s, and %s=1", missing, EnvRequireContainer)
	}
	t.Skip(missing)
}
