package testtools

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

// DocTable returns the rows of the Markdown table that follows the line
// "<!-- table: name -->" in the file at path (its header and separator
// rows left out), each cell trimmed of spaces and of the backticks around
// it, "\|" read as "|". It fails t when there is no such table: the docs
// and the tests that run them stay one.
func DocTable(t testing.TB, path, name string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	marker := "<!-- table: " + name + " -->"
	_, after, ok := strings.Cut(string(b), marker)
	if !ok {
		t.Fatalf("%s has no %q", path, marker)
	}
	var rows [][]string
	for i, line := range strings.Split(strings.TrimLeft(after, "\n"), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i < 2 {
			continue // the header and its separator
		}
		line = strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00")
		var row []string
		for cell := range strings.SplitSeq(line, "|") {
			cell = strings.TrimSpace(strings.ReplaceAll(cell, "\x00", "|"))
			row = append(row, strings.TrimSuffix(strings.TrimPrefix(cell, "`"), "`"))
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: the table after %q has no rows", path, marker)
	}
	return rows
}

// RawRequest sends a request to addr on a connection of its own, the
// target written byte for byte (http.Client would escape or refuse what a
// test must send as is), and returns the response, its body read.
func RawRequest(addr, method, target string, header [][2]string) (*http.Response, []byte, error) {
	var c RawConn
	defer c.Close()
	return c.Do(addr, method, target, append(header, [2]string{"Connection", "close"}))
}

// RawConn sends RawRequest's requests on one kept-alive connection, opened
// again when the server closes it: a fuzz test sending thousands a second
// would otherwise use up the ephemeral ports in TIME_WAIT.
type RawConn struct {
	c  net.Conn
	br *bufio.Reader
}

// Do sends one request to addr and reads its response.
func (rc *RawConn) Do(addr, method, target string, header [][2]string) (*http.Response, []byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, target, addr)
	for _, f := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", f[0], f[1])
	}
	b.WriteString("\r\n")
	for attempt := 0; ; attempt++ {
		if rc.c == nil {
			c, err := net.DialTimeout("tcp", addr, 10*time.Second)
			if err != nil {
				return nil, nil, err
			}
			rc.c, rc.br = c, bufio.NewReader(c)
		}
		rc.c.SetDeadline(clock.Monotonic().Add(30 * time.Second))
		res, body, err := rc.roundTrip(b.String())
		if err != nil {
			rc.Close()
			if attempt == 0 {
				continue // the server closed a kept-alive connection
			}
			return nil, nil, err
		}
		if res.Close {
			rc.Close()
		}
		return res, body, nil
	}
}

func (rc *RawConn) roundTrip(req string) (*http.Response, []byte, error) {
	if _, err := rc.c.Write([]byte(req)); err != nil {
		return nil, nil, err
	}
	res, err := http.ReadResponse(rc.br, nil)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res, body, err
}

// Close closes the connection, if one is open.
func (rc *RawConn) Close() {
	if rc.c != nil {
		rc.c.Close()
		rc.c, rc.br = nil, nil
	}
}
