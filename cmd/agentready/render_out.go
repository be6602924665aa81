package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/internal/publish"
)

// renderTree writes every document d yields under dir, at the path it is
// served at (robots.txt included), for a static host: the documents as
// agentready serves them, taken from its own handler so that nothing is
// rendered twice. It lists each file with the Content-Type the host must
// send for it; a path that cannot be a file beside another (a file where
// another document needs a directory) is refused. Files are written
// through an os.Root, so no path leaves dir.
func renderTree(dir string, d *declaration, stdout, stderr io.Writer) int {
	opts := append(d.options(), agentready.WithLogger(slog.New(slog.DiscardHandler)),
		agentready.WithDocuments(agentready.Documents{RobotsTxt: true, A2AVersion: d.a2aVersion}))
	m, err := agentready.New(d.Site, opts...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	docs, err := publish.Render(&d.Site, publish.Options{Formats: d.formats, A2AVersion: d.a2aVersion})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	paths := []string{"/robots.txt"}
	for _, doc := range docs {
		paths = append(paths, doc.Paths...)
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer root.Close()
	h := m.Handler(nil)
	var errs []error
	for _, p := range paths {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, strings.TrimSuffix(d.Site.URL, "/")+p, nil))
		if w.Code != http.StatusOK {
			errs = append(errs, fmt.Errorf("%s: served %d", p, w.Code))
			continue
		}
		rel := strings.TrimPrefix(path.Clean(p), "/")
		if err := writeUnder(root, rel, w.Body.Bytes()); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			continue
		}
		fmt.Fprintf(stdout, "%s/%s\t%s\n", strings.TrimSuffix(dir, "/"), rel, w.Header().Get("Content-Type"))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// writeUnder writes b at rel under root, making its directories.
func writeUnder(root *os.Root, rel string, b []byte) error {
	if d := path.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrInvalid) {
				return fmt.Errorf("another document is a file where this one needs the directory %s", d)
			}
			return err
		}
	}
	return root.WriteFile(rel, b, 0o644)
}
