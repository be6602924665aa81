// Package testtools lets a test use a program from outside Go (node and a
// package npm ci installed, bash, curl, python3 with Flask, Django or
// Protego, java with Tomcat's or Jetty's jars, php): without it the test
// is skipped, unless AGENTREADY_REQUIRE_UPSTREAMS=1 (set by .ci/run),
// which makes it fail, so that CI never passes by skipping.
//
// Each function that says what is missing ("" when nothing is) is called
// both by the tests that need it and by the program skipped
// (internal/testing/testtools/skipped), which ends the README's test command with
// one line saying what was skipped and why: the two cannot disagree.
package testtools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// EnvRequire names the variable that turns a skip into a failure.
const EnvRequire = "AGENTREADY_REQUIRE_UPSTREAMS"

// Need skips or fails t, as EnvRequire says, when missing is not "".
func Need(t testing.TB, missing string) {
	t.Helper()
	if missing == "" {
		return
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("%s, and %s=1", missing, EnvRequire)
	}
	t.Skip(missing)
}

// Programs says which of the programs is not on PATH, "" when all are.
func Programs(names ...string) string {
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			return n + " is not on PATH"
		}
	}
	return ""
}

// NodePackage says what is missing to run node with pkg installed by npm
// ci in dir (pkg's path under node_modules), "" when nothing is.
func NodePackage(dir, pkg string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not on PATH (apt-get install nodejs npm)"
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
		return pkg + " is not installed (npm ci in " + dir + ")"
	}
	return ""
}

// Redis says what is missing to start a private redis-server, as
// internal/testing/redistest does, "" when nothing is.
func Redis() string {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return "redis-server is not on PATH (apt-get install redis-server)"
	}
	return ""
}

// RedisCLI says what is missing to join private servers into a Redis
// Cluster (redistest.StartCluster), "" when nothing is.
func RedisCLI() string {
	if _, err := exec.LookPath("redis-cli"); err != nil {
		return "redis-cli is not on PATH (apt-get install redis-tools)"
	}
	return ""
}

// FlaskPython returns the first Python that imports Flask: the one on
// PATH (a pyenv's, say), else the system's, where apt-get installs
// python3-flask. When neither does it returns "" and what is missing.
func FlaskPython() (python, missing string) {
	return pythonImporting("flask", "Flask", "python3-flask")
}

// DjangoPython returns the first Python that imports Django, as
// FlaskPython does for Flask.
func DjangoPython() (python, missing string) {
	return pythonImporting("django", "Django", "python3-django")
}

// ProtegoPython returns the first Python that imports Protego, the
// robots.txt parser of Scrapy (Debian's python3-protego, which installs
// it for /usr/bin/python3 only), as FlaskPython does for Flask.
func ProtegoPython() (python, missing string) {
	return pythonImporting("protego", "Protego", "python3-protego")
}

// pythonImporting returns the first of python3 (PATH) and
// /usr/bin/python3 that imports module, or "" and what is missing: name,
// and the Debian package that installs it.
func pythonImporting(module, name, pkg string) (python, missing string) {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import "+module).Run() == nil {
			return py, ""
		}
	}
	return "", "python3 with " + name + " is not installed (apt-get install " + pkg + ")"
}

// javaJars is where Debian's Java library packages install their jars.
const javaJars = "/usr/share/java"

// Tomcat returns the class path of embedded Tomcat 10 (Debian's
// libtomcat10-java) and says what is missing to run a one-file servlet
// app on it with java, "" when nothing is.
func Tomcat() (classpath, missing string) {
	return javaApp("Tomcat 10", "libtomcat10-java", "tomcat10-catalina", "tomcat10-coyote",
		"tomcat10-util", "tomcat10-util-scan", "tomcat10-juli", "tomcat10-api", "tomcat10-servlet-api",
		"tomcat10-jaspic-api", "tomcat10-annotations-api", "tomcat10-jni")
}

// Jetty returns the class path of embedded Jetty 9 with its servlets and
// h2c (Debian's libjetty9-java) and says what is missing to run a
// one-file servlet app on it with java, "" when nothing is.
func Jetty() (classpath, missing string) {
	return javaApp("Jetty 9", "libjetty9-java", "jetty9-server", "jetty9-servlet", "jetty9-http",
		"jetty9-io", "jetty9-util", "jetty9-security", "jetty9-http2-server", "jetty9-http2-common",
		"jetty9-http2-hpack", "servlet-api")
}

// javaApp returns the class path of jars (names in javaJars, without
// ".jar") and says what is missing to run a one-file app on them: java
// that compiles a source file at launch (JEP 330, Java 11 and later,
// with the jdk.compiler module, which Debian's JRE holds), and the jars,
// which pkg installs.
func javaApp(name, pkg string, jars ...string) (classpath, missing string) {
	if _, err := exec.LookPath("java"); err != nil {
		return "", "java is not on PATH (apt-get install default-jre-headless)"
	}
	var paths []string
	for _, j := range jars {
		p := filepath.Join(javaJars, j+".jar")
		if _, err := os.Stat(p); err != nil {
			return "", name + "'s jars are not installed (apt-get install " + pkg + ")"
		}
		paths = append(paths, p)
	}
	out, err := exec.Command("java", "--list-modules").Output()
	if err != nil || !strings.Contains(string(out), "jdk.compiler@") {
		return "", "java cannot compile a source file at launch (Java 11 or later with the jdk.compiler module: apt-get install default-jre-headless)"
	}
	return strings.Join(paths, string(os.PathListSeparator)), ""
}

// Python3 says what is missing to run python3 with its standard library
// (urllib.robotparser), "" when nothing is.
func Python3() string {
	if _, err := exec.LookPath("python3"); err != nil {
		return "python3 is not on PATH (apt-get install python3)"
	}
	return ""
}

// PHP says what is missing to run PHP's built-in web server, "" when
// nothing is.
func PHP() string {
	if _, err := exec.LookPath("php"); err != nil {
		return "php is not on PATH (apt-get install php-cli)"
	}
	return ""
}

// Chromium returns the path of headless Chromium (chromium, else
// chromium-browser) and says what is missing to load a page in it and read
// its screenshot with tesseract, "" when nothing is.
func Chromium() (path, missing string) {
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			path = p
			break
		}
	}
	switch {
	case path == "":
		missing = "chromium (or chromium-browser) is not on PATH (apt-get install chromium tesseract-ocr)"
	case Programs("tesseract") != "":
		missing = "tesseract is not on PATH (apt-get install tesseract-ocr)"
	}
	return path, missing
}

// Nginx returns the path of nginx (Debian installs it in /usr/sbin, which
// is not on every user's PATH) with its auth_request module, as the
// forward-auth tests run it.
func Nginx() (path, missing string) {
	path, err := exec.LookPath("nginx")
	if err != nil {
		path = "/usr/sbin/nginx"
		if _, err := os.Stat(path); err != nil {
			return "", "nginx is not installed (apt-get install nginx-light)"
		}
	}
	out, _ := exec.Command(path, "-V").CombinedOutput()
	if !strings.Contains(string(out), "http_auth_request_module") {
		return "", path + " has no auth_request module (apt-get install nginx-light)"
	}
	return path, ""
}

// Caddy says what is missing to run Caddy, "" when nothing is.
func Caddy() string {
	if _, err := exec.LookPath("caddy"); err != nil {
		return "caddy is not on PATH (apt-get install caddy)"
	}
	return ""
}
