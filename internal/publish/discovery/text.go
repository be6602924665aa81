package discovery

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/format/linetext"
)

// agents.txt (both dialects) and agents.md are line-based: validation holds
// every string of the Site to linetext's rule (one line of UTF-8 text),
// found by reflection so that no field added later is missed, and the
// renderers write only validated sites. A format says it is line-based
// with Check.LineBased. JSON Schema documents (Schema
// fields) and Metadata values are only rendered into JSON, which escapes
// them.

// maxWalkDepth bounds the descent into values of type any (Param.Default,
// Param.Enum), which may nest arbitrarily.
const maxWalkDepth = 64

var (
	schemaType = reflect.TypeFor[map[string]any]()
	siteType   = reflect.TypeFor[config.Site]()
)

// text walks every string of the Site: docs are the line-based documents
// served, format their formats.
func (c *Check) text(docs, format string) {
	w := textWalker{r: c.Report, docs: docs, format: format, seen: map[visit]bool{}}
	w.walk(reflect.ValueOf(c.Site).Elem(), "", 0, false)
}

type textWalker struct {
	r            *fieldcheck.Report
	docs, format string
	seen         map[visit]bool // shared values below an any, walked once
}

type visit struct {
	typ reflect.Type
	ptr uintptr
	n   int
}

func (w *textWalker) walk(v reflect.Value, path string, depth int, dynamic bool) {
	if depth > maxWalkDepth {
		w.r.Addf(path, "", "nests more than %d levels deep", maxWalkDepth)
		return
	}
	switch v.Kind() {
	case reflect.String:
		w.check(path, "", v.String())
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), path, depth+1, true)
		}
	case reflect.Pointer:
		if !v.IsNil() && w.first(v, dynamic) {
			w.walk(v.Elem(), path, depth+1, dynamic)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Type == schemaType {
				continue
			}
			fp := sf.Name
			if path != "" {
				fp = path + "." + sf.Name
			}
			if t == siteType && sf.Name == "Metadata" {
				w.mapKeys(v.Field(i), fp)
				continue
			}
			w.walk(v.Field(i), fp, depth+1, dynamic)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && !w.first(v, dynamic) {
			return
		}
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), fieldcheck.At(path, i), depth+1, dynamic)
		}
	case reflect.Map:
		if !w.first(v, dynamic) {
			return
		}
		for _, k := range sortedKeys(v) {
			kp := path + "[" + keyText(k) + "]"
			if k.Kind() == reflect.String {
				w.check(kp, "key ", k.String())
			}
			w.walk(v.MapIndex(k), kp, depth+1, dynamic)
		}
	}
}

// mapKeys checks only the keys of a map whose values are JSON-only.
func (w *textWalker) mapKeys(v reflect.Value, path string) {
	for _, k := range sortedKeys(v) {
		if k.Kind() == reflect.String {
			w.check(path+"["+keyText(k)+"]", "key ", k.String())
		}
	}
}

// first reports whether a map, slice or pointer below an any is seen for
// the first time; shared or cyclic values are walked once.
func (w *textWalker) first(v reflect.Value, dynamic bool) bool {
	if !dynamic || v.IsNil() {
		return true
	}
	k := visit{v.Type(), v.Pointer(), 0}
	if v.Kind() == reflect.Slice {
		k.n = v.Len()
	}
	if w.seen[k] {
		return false
	}
	w.seen[k] = true
	return true
}

// check reports the first character of s that a line-based format cannot
// carry.
func (w *textWalker) check(path, what, s string) {
	switch c, p := linetext.Find(s, false); p {
	case linetext.InvalidUTF8:
		w.r.Addf(path, w.format, "%sis not valid UTF-8; %s are served as UTF-8 text", what, w.docs)
	case linetext.LineBreak:
		w.r.Addf(path, w.format, "%scontains a line break (%U), which would inject a line of its own into the line-based %s (agents.txt injection)", what, c, w.docs)
	case linetext.Control:
		w.r.Addf(path, w.format, "%scontains the control character %U, which the line-based %s must not carry", what, c, w.docs)
	}
}

// sortedKeys returns a map's keys in a deterministic order.
func sortedKeys(v reflect.Value) []reflect.Value {
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int {
		return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
	})
	return keys
}

// keyText renders a map key for a field path, quoted when it holds
// characters that would garble the path.
func keyText(k reflect.Value) string {
	s := fmt.Sprint(k.Interface())
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f || s[i] == ']' || s[i] == '[' || s[i] == '"' {
			return strconv.Quote(s)
		}
	}
	return s
}
