package main

import (
	"reflect"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestSiteYAML: site.yaml declares what the shop declares in Go: the two
// decode equal and render identical documents.
func TestSiteYAML(t *testing.T) {
	fromFile, _, err := config.LoadSite("site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := fixtures.AcmeCeramics()
	// What main.go says with options, the file says with keys.
	want.Dialect, want.ImplicitAccess = config.DialectV010, agentready.ImplicitAllAgents
	if !reflect.DeepEqual(fromFile, want) {
		t.Fatalf("site.yaml:\n got %+v\nwant %+v", fromFile, want)
	}
	// The file's dialect is read without Formats saying it.
	if err := publish.Validate(&fromFile, config.Formats{}); err != nil {
		t.Fatal(err)
	}
	f := config.Formats{Dialect: config.DialectV010}
	if err := publish.Validate(&fromFile, f); err != nil {
		t.Fatal(err)
	}
	a, err := publish.Render(&want, publish.Options{Formats: f})
	if err != nil {
		t.Fatal(err)
	}
	b, err := publish.Render(&fromFile, publish.Options{Formats: f, LastModified: a[0].LastModified})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if string(a[i].Body) != string(b[i].Body) {
			t.Errorf("%s differs", a[i].Name)
		}
	}
}
