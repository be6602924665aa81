package publish_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/publish/discovery"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// failing is a format whose rendering fails, otherwise the one it wraps.
type failing struct {
	discovery.Format
	err error
}

func (f failing) Render(*config.Site, *discovery.Env) ([]discovery.Doc, error) { return nil, f.err }

// TestRenderReportsEveryFormat: when two formats fail, Render reports
// both (errors.Join), not only the first, and returns no documents. It
// swaps publish.Formats: no test of the package runs in parallel.
func TestRenderReportsEveryFormat(t *testing.T) {
	defer func(f []discovery.Format) { publish.Formats = f }(publish.Formats)
	first, second := errors.New("first format's problem"), errors.New("second format's problem")
	publish.Formats = append([]discovery.Format{}, publish.Formats...)
	publish.Formats[0] = failing{publish.Formats[0], first}
	publish.Formats[len(publish.Formats)-1] = failing{publish.Formats[len(publish.Formats)-1], second}
	site := fixtures.OutdoorSupply()
	docs, err := publish.Render(&site, publish.Options{})
	if !errors.Is(err, first) || !errors.Is(err, second) || docs != nil {
		t.Fatalf("Render: %d documents, %v; want both formats' errors", len(docs), err)
	}
	if !strings.Contains(err.Error(), "publish: first format's problem\npublish: second format's problem") {
		t.Errorf("Render's error: %q", err)
	}
}
