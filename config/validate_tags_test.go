package config_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/publish"
)

// TestTagRulesCoverEveryTag: every `validate` tag that can fail has an
// entry in config's tagRules or a format's, so its message says where the rule comes from and
// which format owns it.
func TestTagRulesCoverEveryTag(t *testing.T) {
	// config's table and every format's: a key in two would be reported
	// twice.
	rules := map[string]fieldcheck.TagRule{}
	for _, table := range tagTables() {
		for k, r := range table {
			if _, dup := rules[k]; dup {
				t.Errorf("%s has two tag rules", k)
			}
			rules[k] = r
		}
	}
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map || typ.Kind() == reflect.Array {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		defer delete(seen, typ)
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			if tag := f.Tag.Get("validate"); tag != "" && tag != "dive" {
				if _, ok := rules[p]; !ok {
					t.Errorf("field %s has validate:%q but no tagRules entry", p, tag)
				}
			}
			walk(f.Type, p)
		}
	}
	walk(reflect.TypeFor[config.Site](), "")
	for key, rule := range rules {
		if rule.Ref == "" {
			t.Errorf("tagRules[%q] has no reference", key)
		}
		if rule.Format != "" && !strings.Contains(rule.Ref, rule.Format) {
			t.Errorf("tagRules[%q]: reference %q does not name its format %s", key, rule.Ref, rule.Format)
		}
	}
}

func tagTables() []map[string]fieldcheck.TagRule {
	tables := []map[string]fieldcheck.TagRule{config.TagRules}
	for _, f := range publish.Formats {
		tables = append(tables, f.TagRules())
	}
	return tables
}
