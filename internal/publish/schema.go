package publish

import (
	"encoding/json"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/schemagen"
)

// FileSchema is the JSON Schema of a declaration file: config's part
// (config.FileSchema: the types, their validate tags, the declaration's
// rules) and every format's (discovery.Format.Schema), whose rules apply
// to a file since every document is published from one. config/
// site.schema.json is its golden copy; agentready schema prints it.
func FileSchema() ([]byte, error) {
	b, err := config.FileSchema()
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	defs, _ := doc["$defs"].(map[string]any)
	file, _ := defs["File"].(map[string]any)
	var rules []any
	for _, f := range Formats {
		part := f.Schema()
		if err := schemagen.AddRules(defs, part.Fields, fieldcheck.Key); err != nil {
			return nil, err
		}
		rules = append(rules, part.File...)
	}
	allOf, _ := file["allOf"].([]any)
	file["allOf"] = append(rules, allOf...)
	return json.MarshalIndent(doc, "", "  ")
}
