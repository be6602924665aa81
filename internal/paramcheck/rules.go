package paramcheck

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
)

// faults gathers the faults of one call, each (param, location, code)
// once.
type faults []Fault

func (fs *faults) add(p *param, in, code, detail string) {
	name := ""
	if p != nil {
		name = p.name
	}
	for _, f := range *fs {
		if f.Param == name && f.In == in && f.Code == code {
			return
		}
	}
	*fs = append(*fs, Fault{Param: name, In: in, Code: code, Detail: detail})
}

// strings checks the values a string source (a query, a form, header
// field lines, a path segment) sent for p: none, one, or an array's
// several.
func (fs *faults) strings(p *param, in string, vals []string) {
	switch {
	case len(vals) == 0:
		if p.required {
			fs.add(p, in, CodeMissing, "is required and missing")
		}
		return
	case p.typ == config.TypeObject:
		return // a string source holds no JSON object: present is all it can be
	case p.typ == config.TypeArray:
		for _, v := range vals {
			if len(p.enum) > 0 && !p.matchStr(v) {
				fs.add(p, in, CodeEnum, "has the element "+clip(v)+", not one of "+p.enumText)
			}
		}
		return
	case len(vals) > 1:
		fs.add(p, in, CodeRepeated, "is sent "+strconv.Itoa(len(vals))+" times; a param that is not an array is sent once")
	}
	for _, v := range vals {
		fs.scalarString(p, in, v)
	}
}

// scalarString checks one string value of a param that is not an array.
func (fs *faults) scalarString(p *param, in, v string) {
	switch p.typ {
	case config.TypeInteger, config.TypeNumber:
		ok := isNumber(v)
		if p.typ == config.TypeInteger {
			ok = isInteger(v)
		}
		if !ok {
			fs.add(p, in, CodeType, clip(v)+" is not "+typeText(p.typ))
			return
		}
		f, _ := strconv.ParseFloat(v, 64) // the syntax is checked; out of range is ±Inf
		fs.number(p, in, v, f)
	case config.TypeBoolean:
		if v != "true" && v != "false" {
			fs.add(p, in, CodeType, clip(v)+" is not "+typeText(p.typ))
			return
		}
		if len(p.enum) > 0 && !p.matchBool(v == "true") {
			fs.add(p, in, CodeEnum, clip(v)+" is not one of "+p.enumText)
		}
	default:
		if len(p.enum) > 0 && !p.matchStr(v) {
			fs.add(p, in, CodeEnum, clip(v)+" is not one of "+p.enumText)
		}
	}
}

// number checks the number f (text as sent) against p's bounds and enum.
func (fs *faults) number(p *param, in, text string, f float64) {
	if p.min != nil && f < *p.min {
		fs.add(p, in, CodeMin, clip(text)+" is below the minimum "+strconv.FormatFloat(*p.min, 'g', -1, 64))
	}
	if p.max != nil && f > *p.max {
		fs.add(p, in, CodeMax, clip(text)+" is above the maximum "+strconv.FormatFloat(*p.max, 'g', -1, 64))
	}
	if len(p.enum) > 0 && !p.matchNum(f) {
		fs.add(p, in, CodeEnum, clip(text)+" is not one of "+p.enumText)
	}
}

// json checks a JSON value of p: one a decoder gave (with UseNumber, or
// without: float64), or Go values of the same kinds.
func (fs *faults) json(p *param, in string, v any) {
	if v == nil {
		fs.add(p, in, CodeType, "is null, not "+typeText(p.typ))
		return
	}
	wrong := func() { fs.add(p, in, CodeType, "is "+kindText(v)+", not "+typeText(p.typ)) }
	switch p.typ {
	case config.TypeString:
		s, ok := v.(string)
		if !ok {
			wrong()
			return
		}
		if len(p.enum) > 0 && !p.matchStr(s) {
			fs.add(p, in, CodeEnum, clip(s)+" is not one of "+p.enumText)
		}
	case config.TypeInteger, config.TypeNumber:
		text, f, isInt, ok := jsonNumber(v)
		if !ok {
			wrong()
			return
		}
		if p.typ == config.TypeInteger && !isInt {
			fs.add(p, in, CodeType, clip(text)+" is not "+typeText(p.typ))
			return
		}
		fs.number(p, in, text, f)
	case config.TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			wrong()
			return
		}
		if len(p.enum) > 0 && !p.matchBool(b) {
			fs.add(p, in, CodeEnum, strconv.FormatBool(b)+" is not one of "+p.enumText)
		}
	case config.TypeArray:
		a, ok := v.([]any)
		if !ok {
			wrong()
			return
		}
		if len(p.enum) > 0 {
			for _, e := range a {
				if !p.matchJSON(e) {
					fs.add(p, in, CodeEnum, "has the element "+elemText(e)+", not one of "+p.enumText)
				}
			}
		}
	case config.TypeObject:
		if _, ok := v.(map[string]any); !ok {
			wrong()
		}
	}
}

// jsonNumber reads v as a JSON number: its text, its value, whether it is
// an integer (no fraction, no exponent: what decodes into a Go int), and
// whether it is a number at all. A float64 (a map decoded without
// UseNumber, where the text is gone) is an integer when it is integral
// and exact (within 2^53).
func jsonNumber(v any) (text string, f float64, isInt, ok bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !isNumber(s) {
			return s, 0, false, false
		}
		f, _ = strconv.ParseFloat(s, 64)
		return s, f, isInteger(s), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", 0, false, false
		}
		return strconv.FormatFloat(x, 'g', -1, 64), x, x == math.Trunc(x) && math.Abs(x) <= 1<<53, true
	case float32:
		return jsonNumber(float64(x))
	case string, bool:
		return "", 0, false, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), float64(rv.Int()), true, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), float64(rv.Uint()), true, true
	}
	return "", 0, false, false
}

// toFloat is v's value when it is a number (an enum value).
func toFloat(v any) (float64, bool) {
	_, f, _, ok := jsonNumber(v)
	return f, ok
}

func (p *param) matchStr(s string) bool {
	for i := range p.enum {
		if p.enum[i].str == s {
			return true
		}
	}
	return false
}

func (p *param) matchNum(f float64) bool {
	for i := range p.enum {
		if p.enum[i].isNum && p.enum[i].num == f {
			return true
		}
	}
	return false
}

func (p *param) matchBool(b bool) bool {
	for i := range p.enum {
		if p.enum[i].isB && p.enum[i].b == b {
			return true
		}
	}
	return false
}

// matchJSON compares an array's JSON element with the enum, as its kind
// reads it.
func (p *param) matchJSON(e any) bool {
	switch x := e.(type) {
	case string:
		return p.matchStr(x)
	case bool:
		return p.matchBool(x)
	}
	if _, f, _, ok := jsonNumber(e); ok {
		return p.matchNum(f)
	}
	return false
}

// typeText is a type as a fault names it.
func typeText(typ string) string {
	switch typ {
	case config.TypeInteger:
		return "an integer (-?[0-9]+; in JSON a number without fraction or exponent)"
	case config.TypeNumber:
		return "a number (a JSON number)"
	case config.TypeBoolean:
		return "a boolean (true or false)"
	case config.TypeArray:
		return "an array"
	case config.TypeObject:
		return "an object"
	}
	return "a string"
}

// kindText is the JSON kind of v, as a fault names it.
func kindText(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	if _, _, _, ok := jsonNumber(v); ok {
		return "a number"
	}
	return "not a JSON value"
}

// elemText is an array element as a fault names it.
func elemText(e any) string {
	switch x := e.(type) {
	case string:
		return clip(x)
	case bool:
		return strconv.FormatBool(x)
	}
	if text, _, _, ok := jsonNumber(e); ok {
		return clip(text)
	}
	return kindText(e)
}

// sameField compares header field names as CGI, WSGI and PHP read them:
// without case, '_', '.' and ' ' read as '-'.
func sameField(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == '_' || x == '.' || x == ' ' {
			x = '-'
		}
		if y == '_' || y == '.' || y == ' ' {
			y = '-'
		}
		if lower(x) != lower(y) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// structured reports whether a query or form name is name[...], which
// PHP, Rails and qs read as a member of an array or object name (PHP
// reads "name[x", without its ']', as "name_x").
func structured(got, name string) bool {
	return len(got) > len(name) && got[len(name)] == '[' && strings.HasPrefix(got, name) && strings.IndexByte(got[len(name):], ']') > 0
}
