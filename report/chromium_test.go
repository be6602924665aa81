package report_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testtools"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/verify"
)

// envRequireBrowser, set to 1 by .ci/run, turns a missing Chromium or
// tesseract into a failure: CI never passes by skipping this test.
const envRequireBrowser = "AGENTREADY_REQUIRE_BROWSER"

// hostile is an agent name (and a path) a hook or a made-up User-Agent
// may carry: the page must show it as text, never make it an element.
const hostile = `<img src=x onerror=alert(1)>`

// row is what the page must show for one agent: who, how proven, and
// what became of its requests.
type row struct {
	name, grade              string
	allowed, denied, limited int
}

// traffic feeds rep known decisions and returns the agent rows the page
// must show: GPTBot proven by its IP ranges (12 allowed, 3 denied, 2 rate
// limited), ClaudeBot claimed (5 allowed), an anonymous curl (4 denied),
// and an agent named hostile (1 allowed, 1 denied on a hostile path).
// Seven browser requests pass untouched: they are not agent rows.
func traffic(rep *report.Report) []row {
	gpt := enforce.Decision{Class: enforce.Class{Kind: enforce.KindKnown, Name: "GPTBot", Purpose: enforce.PurposeTrainingCrawler},
		Agent: "GPTBot", Grade: enforce.GradeProven, Path: "/blog/post",
		Identity: verify.Identity{Claimed: "GPTBot", Method: verify.IPRange, Agent: "GPTBot", Purpose: enforce.PurposeTrainingCrawler,
			Source: "https://openai.com/gptbot.json"}}
	claude := enforce.Decision{Class: enforce.Class{Kind: enforce.KindKnown, Name: "ClaudeBot", Purpose: enforce.PurposeTrainingCrawler},
		Agent: "*", Grade: enforce.GradeClaimed, Path: "/blog/post"}
	curl := enforce.Decision{Class: enforce.Class{Kind: enforce.KindGeneric, Name: "curl"}, Agent: "*", Grade: enforce.GradeAnonymous, Path: "/admin/users"}
	bad := enforce.Decision{Class: enforce.Class{Kind: enforce.KindDeclared, Name: hostile}, Agent: "*", Grade: enforce.GradeClaimed, Path: "/" + hostile}
	send := func(d enforce.Decision, o enforce.Outcome, rule string, n int) {
		d.Outcome, d.Rule = o, rule
		for range n {
			rep.Observe(d)
		}
	}
	send(gpt, enforce.Allow, "Allow: /blog/*", 12)
	send(gpt, enforce.DenyPath, "Disallow: /private/*", 3)
	send(gpt, enforce.DenyRate, "Rate-Limit: 60/minute", 2)
	send(claude, enforce.Allow, "Allow: /blog/*", 5)
	send(curl, enforce.DenyPath, "Disallow: /admin/*", 4)
	send(bad, enforce.Allow, "", 1)
	send(bad, enforce.DenyPath, "Disallow: /*", 1)
	send(enforce.Decision{Class: enforce.Class{Kind: enforce.KindBrowser}, Grade: enforce.GradeAnonymous}, enforce.Pass, "", 7)
	return []row{
		{"GPTBot", enforce.GradeProven, 12, 3, 2},
		{"ClaudeBot", enforce.GradeClaimed, 5, 0, 0},
		{"curl", enforce.GradeAnonymous, 0, 4, 0},
		{hostile, enforce.GradeClaimed, 1, 1, 0},
	}
}

// TestReportInChromium loads the report page in headless Chromium, as an
// operator's browser would, and checks what a person sees.
func TestReportInChromium(t *testing.T) {
	chromium := browser(t)
	rep := report.New(report.Options{})
	want := traffic(rep)
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		rep.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	start := time.Now()

	// The DOM Chromium built from the page: the agents' rows and counts,
	// and the hostile name as text.
	dom := run(t, chromium, dir, 1, "--dump-dom", srv.URL+"/")
	tDOM := time.Since(start)
	table := agentTable(t, dom)
	for _, w := range want {
		got, ok := table.rows[w.name]
		if !ok {
			t.Errorf("the page has no row for %q; rows: %q", w.name, table.names())
			continue
		}
		if got.grade != w.grade || got.allowed != w.allowed || got.denied != w.denied || got.limited != w.limited {
			t.Errorf("row %q shows %+v, want %+v", w.name, got, w)
		}
	}
	if n := len(table.rows); n != len(want) {
		t.Errorf("%d agent rows, want %d (browsers are not agents): %q", n, len(want), table.names())
	}
	if strings.Contains(dom, "<img") {
		t.Errorf("the hostile name became an element: %s", around(dom, "<img"))
	}
	if !strings.Contains(dom, html.EscapeString(hostile)) {
		t.Errorf("the hostile name is not on the page as text")
	}
	if strings.Contains(dom, "<script") {
		t.Errorf("the page runs a script: it must need none")
	}

	// The screenshot: a PNG of the window, with something drawn on it.
	shot := filepath.Join(dir, "report.png")
	run(t, chromium, dir, 1, "--screenshot="+shot, srv.URL+"/")
	tShot := time.Since(start) - tDOM
	checkPNG(t, shot, 1280, 1600)

	// What a person reads: tesseract's OCR of the screenshot.
	ocrRows(t, shot, table, want)
	t.Logf("dump-dom %v, screenshot %v, total %v", tDOM.Round(time.Millisecond), tShot.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	mu.Lock()
	defer mu.Unlock()
	for _, p := range asked {
		if p != "/" && p != "/favicon.ico" {
			t.Errorf("the page asked for %s: it must need no other asset", p)
		}
	}
}

// browser returns Chromium's path, skipping t (failing it when
// envRequireBrowser or testtools.EnvRequire is 1) when it or tesseract is
// missing.
func browser(t *testing.T) string {
	t.Helper()
	missing := testtools.Programs("tesseract")
	path := ""
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		missing = "chromium (or chromium-browser) is not on PATH"
	}
	if missing != "" && os.Getenv(envRequireBrowser) == "1" {
		t.Fatalf("%s (apt-get install chromium tesseract-ocr), and %s=1", missing, envRequireBrowser)
	}
	testtools.Need(t, missing)
	return path
}

// run runs headless Chromium with its own profile in dir, at the window
// size the brief fixes. Host resolution is mapped away from everything
// but the test server, so that the page cannot load an outside asset and
// the test never reaches the internet.
func run(t *testing.T, chromium, dir string, scale int, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	base := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,1600",
		fmt.Sprintf("--force-device-scale-factor=%d", scale), "--user-data-dir=" + filepath.Join(dir, "profile"),
		"--no-first-run", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// checkPNG: file is a PNG of w×h pixels on which the page drew: a fair
// share of its pixels differ from the background and they spread over
// both axes.
func checkPNG(t *testing.T, file string, w, h int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != w || b.Dy() != h {
		t.Errorf("the screenshot is %dx%d, want the window's %dx%d", b.Dx(), b.Dy(), w, h)
	}
	bg := img.At(b.Max.X-1, b.Max.Y-1)
	ink, box := 0, image.Rectangle{Min: b.Max, Max: b.Min}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.At(x, y) != bg {
				ink++
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if share := float64(ink) / float64(b.Dx()*b.Dy()); share < 0.005 || box.Dx() < w/4 || box.Dy() < h/10 {
		t.Errorf("the screenshot is nearly blank: %.2f%% of pixels drawn, in %v", 100*share, box)
	}
}

// table is the agents' table as the DOM holds it: each row's cells, by
// the name it shows.
type table struct {
	header []string
	rows   map[string]row
	cells  map[string][]string
}

func (tb table) names() []string {
	var ns []string
	for n := range tb.rows {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

var (
	reTable = regexp.MustCompile(`(?is)<table\b.*?</table>`)
	reRow   = regexp.MustCompile(`(?is)<tr\b.*?</tr>`)
	reCell  = regexp.MustCompile(`(?is)<t([hd])\b[^>]*>(.*?)</t[hd]>`)
	reTag   = regexp.MustCompile(`(?s)<[^>]*>`)
	reSpace = regexp.MustCompile(`\s+`)
	reInt   = regexp.MustCompile(`\d+`)
)

// text is what a cell shows: its markup dropped, its entities decoded.
func text(s string) string {
	return strings.TrimSpace(reSpace.ReplaceAllString(html.UnescapeString(reTag.ReplaceAllString(s, " ")), " "))
}

// agentTable finds the table whose header names the agent, its grade and
// the allowed, denied and rate-limited counts, and reads its rows (the
// "other" row aside). Chromium serialises the DOM it built: text as
// escaped text, elements as tags, so a hostile name read back here as
// text was never an element.
func agentTable(t *testing.T, dom string) table {
	t.Helper()
	for _, tm := range reTable.FindAllString(dom, -1) {
		trs := reRow.FindAllString(tm, -1)
		if len(trs) == 0 {
			continue
		}
		var head []string
		for _, c := range reCell.FindAllStringSubmatch(trs[0], -1) {
			head = append(head, strings.ToLower(text(c[2])))
		}
		col := func(words ...string) int {
			return slices.IndexFunc(head, func(h string) bool {
				return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(h, w) })
			})
		}
		name, grade, allowed, denied, limited := col("agent", "name"), col("grade"), col("allowed"), col("denied"), col("limited")
		if name < 0 || grade < 0 || allowed < 0 || denied < 0 || limited < 0 {
			continue
		}
		tb := table{header: head, rows: map[string]row{}, cells: map[string][]string{}}
		for _, tr := range trs[1:] {
			var cells []string
			for _, c := range reCell.FindAllStringSubmatch(tr, -1) {
				cells = append(cells, text(c[2]))
			}
			if len(cells) != len(head) || strings.EqualFold(cells[name], "other") {
				continue
			}
			num := func(i int) int {
				var n int
				fmt.Sscan(cells[i], &n)
				return n
			}
			tb.rows[cells[name]] = row{cells[name], cells[grade], num(allowed), num(denied), num(limited)}
			tb.cells[cells[name]] = cells
		}
		return tb
	}
	t.Fatalf("no table on the page has agent, grade, allowed, denied and rate-limited columns:\n%s", dom)
	return table{}
}

// ocrRows reads the screenshot with tesseract and checks that each agent
// the page shows is on a line of its own, with the counts its row shows,
// in the row's order: what a person reading the page sees.
func ocrRows(t *testing.T, shot string, tb table, want []row) {
	t.Helper()
	out, err := exec.Command("tesseract", shot, "stdout").Output()
	if err != nil {
		t.Fatalf("tesseract: %v", err)
	}
	lines := strings.Split(string(out), "\n")
	for _, w := range want {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), w.name+" ") })
		if i < 0 {
			t.Errorf("OCR does not read %q at the start of a line:\n%s", w.name, out)
			continue
		}
		rest := strings.TrimPrefix(strings.TrimSpace(lines[i]), w.name)
		var wantNums []string
		for _, c := range tb.cells[w.name][1:] {
			wantNums = append(wantNums, reInt.FindAllString(c, -1)...)
		}
		if got := reInt.FindAllString(rest, -1); !slices.Equal(got, wantNums) {
			t.Errorf("OCR reads %q's row as %q: numbers %q, want %q", w.name, lines[i], got, wantNums)
		}
		if !strings.Contains(rest, w.grade) {
			t.Errorf("OCR reads %q's row as %q, without its grade %s", w.name, lines[i], w.grade)
		}
	}
}

// around is s near the first sub, for a failure's message.
func around(s, sub string) string {
	i := strings.Index(s, sub)
	if i < 0 {
		return ""
	}
	return s[max(0, i-120):min(len(s), i+120)]
}
