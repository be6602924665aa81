package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// initRun runs agentready init with args and stdin, and returns its exit
// status, stdout and stderr.
func initRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	defer func(r io.Reader) { initStdin = r }(initStdin)
	initStdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"init"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// lintsClean writes doc to a file and runs lint on it.
func lintsClean(t *testing.T, doc string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"lint", file}, &out, &out); code != 0 {
		t.Fatalf("lint: exit %d: %s\n%s", code, out.String(), doc)
	}
}

// TestInitFlags: without -robots, the flags give a declaration lint
// accepts, with the rules given, or every path open.
func TestInitFlags(t *testing.T) {
	code, out, errs := initRun(t, "", "-url", "https://shop.example", "-name", "Shop", "-description", "Mugs", "-contact", "agents@shop.example", "-disallow", "/admin/, /cart/", "-allow", "/api/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lintsClean(t, out)
	for _, want := range []string{`name: "Shop"`, `url: "https://shop.example"`, `contact: "agents@shop.example"`, `- "/admin/"`, `- "/cart/"`, `- "/api/"`, `- name: "*"`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	code, out, errs = initRun(t, "", "-url", "https://shop.example")
	if code != 0 || !strings.Contains(out, `name: "shop.example"`) || !strings.Contains(out, "allow:\n    - \"/\"") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	lintsClean(t, out)
}

// TestInitUsage: usage errors exit 2, with the reason.
func TestInitUsage(t *testing.T) {
	robots := filepath.Join(t.TempDir(), "robots.txt")
	if err := os.WriteFile(robots, []byte("User-agent: *\nDisallow: /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-url is required"},
		{[]string{"-robots", robots}, "names no https Sitemap"},
		{[]string{"-url", "shop.example"}, "want an absolute URL"},
		{[]string{"-url", "http://shop.example"}, "must use https"},
		{[]string{"-url", "https://shop.example", "-contact", "not an address"}, "contact"},
		{[]string{"-url", "https://shop.example", "-disallow", "admin"}, `must start with "/"`},
		{[]string{"-url", "https://shop.example", "extra"}, `unexpected argument "extra"`},
		{[]string{"-url", "https://shop.example", "-robots", robots, "-allow", "/a"}, "-allow and -disallow"},
		{[]string{"-bogus"}, "flag provided but not defined"},
	} {
		code, out, errs := initRun(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestInitOutputFile: -o refuses a file that exists unless -force.
func TestInitOutputFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site.yaml")
	if code, _, errs := initRun(t, "", "-url", "https://shop.example", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lintsClean(t, string(b))
	if err := os.WriteFile(out, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	robots := filepath.Join(t.TempDir(), "robots.txt")
	if err := os.WriteFile(robots, []byte("User-agent: GPTBot\nDisallow: /\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := initRun(t, "", "-robots", robots, "-url", "https://shop.example", "-o", out)
	if b, _ := os.ReadFile(out); code != 1 || errs != "agentready init: "+out+" exists; give -force to overwrite it\n" || string(b) != "mine\n" {
		t.Errorf("existing file: exit %d, %q, file %q", code, errs, b)
	}
	code, _, errs = initRun(t, "", "-url", "https://shop.example", "-o", out, "-force")
	if b, _ := os.ReadFile(out); code != 0 || !strings.HasPrefix(string(b), "# A declaration made by agentready init") {
		t.Errorf("-force: exit %d, %q, file %q", code, errs, b)
	}
}

// TestInitBadInput: a robots.txt that cannot be read, is not text or is
// larger than crawlers read (RFC 9309 2.5) exits 1 with the reason.
func TestInitBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		file, want string
	}{
		{filepath.Join(dir, "missing.txt"), "no such file"},
		{write("binary", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")), "NUL byte"},
		{write("latin1", []byte("User-agent: *\nDisallow: /caf\xe9\n")), "not UTF-8"},
		{write("huge", bytes.Repeat([]byte("# padding\n"), maxRobotsBytes/10+1)), "larger than 500 KiB"},
	} {
		code, out, errs := initRun(t, "", "-robots", c.file, "-url", "https://shop.example")
		if code != 1 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", c.file, code, out, errs, c.want)
		}
	}
	// Exactly 500 KiB is read.
	full := write("full", append([]byte("User-agent: *\nDisallow: /x\n"), bytes.Repeat([]byte("#"), maxRobotsBytes-27)...))
	if code, out, errs := initRun(t, "", "-robots", full, "-url", "https://shop.example"); code != 0 {
		t.Errorf("500 KiB: exit %d: %s", code, errs)
	} else {
		lintsClean(t, out)
	}
}

// TestInitRobotsRFC9309: init reads a robots.txt by RFC 9309's rules and
// reports, at its line, each thing it cannot carry.
func TestInitRobotsRFC9309(t *testing.T) {
	robots := "\ufeffdisallow: /orphan\n" + // 1: before any user-agent line (2.1)
		"USER-AGENT: *\n" + // 2: field names are case-insensitive (2.2)
		"DisAllow: /private/\n" + // 3
		"Crawl-delay: 10\n" + // 4
		"user-agent: GPTBot\n" + // 5: after a rule: a new group
		"Disallow: /\n" + // 6
		"\n" +
		"User-agent: *\n" + // 8: a second "*" group, combined (2.2.1)
		"Allow: /private/open$\n" + // 9
		"Disallow: /a//b\n" + // 10: refused by the declaration
		"Dissallow: /typo\n" + // 11: Google's typo, not RFC 9309's
		"Sitemap: https://shop.example/sitemap.xml\n" + // 12
		"Host: shop.example\n" + // 13
		"Disallow /nocolon\n" // 14
	code, out, errs := initRun(t, robots, "-robots", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lintsClean(t, out)
	for _, want := range []string{
		`url: "https://shop.example"`, // from the Sitemap
		`- "/private/"  # line 3`,
		`- "/private/open$"  # line 9`,
		`- name: "*"  # User-agent: * (lines 2, 8)`,
		`- name: "GPTBot"  # User-agent: GPTBot (line 5)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	for _, want := range []string{
		"stdin:1: disallow: /orphan: ignored",
		"stdin:4: Crawl-delay: 10: not carried",
		"stdin:5: User-agent: GPTBot: its group is not carried",
		"stdin:10: Disallow: /a//b: not carried",
		`stdin:11: Dissallow: /typo: "Dissallow" is not an RFC 9309 field name`,
		"stdin:11: a line Google's parser reads and RFC 9309 does not: /typo for an unnamed agent is disallowed",
		"stdin:12: Sitemap: https://shop.example/sitemap.xml: not carried",
		"stdin:13: Host: shop.example: not carried",
		`stdin:14: "Disallow /nocolon": not an RFC 9309 record`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("no %q in stderr:\n%s", want, errs)
		}
		if _, msg, _ := strings.Cut(want, ": "); !strings.Contains(out, comment(msg)) {
			t.Errorf("no comment %q in\n%s", msg, out)
		}
	}
	decl, _, _ := strings.Cut(out, "# Not carried")
	for _, p := range []string{"/orphan", "/a//b", "/typo", "/nocolon", "Sitemap", "Crawl"} {
		if strings.Contains(decl, p) {
			t.Errorf("%s is carried:\n%s", p, decl)
		}
	}
}

// TestRobotsMatch: the RFC 9309 2.2.2 and 2.2.3 matching init compares
// files with: the longest match, Allow on a tie, '*' and '$'.
func TestRobotsMatch(t *testing.T) {
	f := parseRobots([]byte("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /*.pdf$\nAllow: /c\nDisallow: /c\nAllow: /d/index.html\nDisallow: /d/\n\nUser-agent: x\nDisallow: /z\n"), false)
	star, _ := f.rulesFor("")
	x, named := f.rulesFor("X")
	if !named || len(x) != 1 {
		t.Fatalf("x's group: %v %v", named, x)
	}
	for _, c := range []struct {
		path  string
		rules []robotsRule
		want  bool
	}{
		{"/a", star, false}, {"/a/b", star, true}, {"/a/bc", star, true}, {"/ab", star, false},
		{"/x.pdf", star, false}, {"/x.pdf?q", star, true}, {"/c", star, true},
		{"/d/", star, true}, {"/d/x", star, false}, {"/a", x, true}, {"/z", x, false},
	} {
		if got := robotsAllowed(c.rules, c.path); got != c.want {
			t.Errorf("%s: allowed %v, want %v", c.path, got, c.want)
		}
	}
}

// TestInitCanonicalSpelling: a pattern agentready renders in another
// spelling is reported, with the paths a crawler then decides otherwise.
func TestInitCanonicalSpelling(t *testing.T) {
	code, out, errs := initRun(t, "User-agent: *\nDisallow: /%7Eguido/\n", "-robots", "-", "-url", "https://shop.example")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lintsClean(t, out)
	for _, want := range []string{
		"stdin:2: Disallow: /%7Eguido/: rendered as /~guido/",
		"/%7Eguido/ is disallowed by robots.txt line 2 (Disallow: /%7Eguido/), allowed by the generated robots.txt (no rule)",
		"/~guido/ is allowed by robots.txt (no rule), disallowed by the generated robots.txt line 10 (Disallow: /~guido/)",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("no %q in\n%s", want, errs)
		}
	}
}
