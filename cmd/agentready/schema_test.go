package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/internal/testing/fixtures"
)

var update = flag.Bool("update", false, "rewrite config/site.schema.json (read the diff before committing)")

// TestSiteSchema: config/site.schema.json is what agentready schema
// prints (fileSchema, generated from settings.File), and the Appendix A
// file is valid against it while a file with an unknown key is not.
func TestSiteSchema(t *testing.T) {
	got, err := fileSchema()
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipped, err := os.ReadFile(schemaFile)
	if err != nil || !bytes.Equal(shipped, got) {
		t.Fatalf("config/site.schema.json is not what agentready schema prints (cd cmd/agentready && go test -run TestSiteSchema -update): %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	asJSON := func(src string) any {
		var x any
		if err := yaml.Unmarshal([]byte(src), &x); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(x)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	if err := sch.Validate(asJSON(strings.Replace(fixtures.OutdoorSupplyYAML, "generated_at: 2026-02-01T00:00:00Z", `generated_at: "2026-02-01T00:00:00Z"`, 1))); err != nil {
		t.Errorf("Appendix A: %v", err)
	}
	if err := sch.Validate(asJSON("name: x\nrateLimit: 60/minute\n")); err == nil {
		t.Error("an unknown key is valid")
	}
	if err := sch.Validate(asJSON("name: x\nurl: https://x.example\nimplicit_access: ai-agents\nupstream: {strict: true}\n")); err != nil {
		t.Errorf("agentready serve's upstream setting: %v", err)
	}
	if err := sch.Validate(asJSON("name: x\nupstream: {strict: yes}\n")); err == nil {
		t.Error("upstream.strict: yes is valid")
	}
}
