package fieldcheck

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// structValidator is built once: a *validator.Validate caches the parsed
// tags of every struct it has seen and is safe for concurrent use.
var structValidator = sync.OnceValue(func() *validator.Validate {
	return validator.New(validator.WithRequiredStructEnabled())
})

// TagError is one failed `validate` tag.
type TagError struct {
	Field string // the path below the struct: "Capabilities[1].ID"
	Key   string // Field without indices and map keys: "Capabilities.ID"
	Msg   string // worded as lint words it
}

var pathIndex = regexp.MustCompile(`\[[^\]]*\]`)

// Tags runs the `validate` tags of the struct v points to; a failure to
// run them is one TagError without a field.
func Tags(v any) []TagError {
	err := structValidator().Struct(v)
	if err == nil {
		return nil
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return []TagError{{Msg: err.Error()}}
	}
	out := make([]TagError, 0, len(ves))
	for _, fe := range ves {
		_, field, _ := strings.Cut(fe.Namespace(), ".")
		out = append(out, TagError{Field: field, Key: pathIndex.ReplaceAllString(field, ""), Msg: tagMessage(fe)})
	}
	return out
}

// TagRule explains the `validate` tag of one field: Owner is the format
// that alone renders the field (its problems are reported only when that
// format is served; "" means always), Format goes into Problem.Format,
// and Ref says where the rule comes from.
type TagRule struct {
	Owner, Format, Ref string
}

// Report adds the tag failure under rule.
func (t TagError) Report(r *Report, rule TagRule) {
	msg := t.Msg
	if rule.Ref != "" {
		msg += " (" + rule.Ref + ")"
	}
	r.Add(t.Field, rule.Format, msg)
}

func tagMessage(fe validator.FieldError) string {
	collection := fe.Kind() == reflect.Slice || fe.Kind() == reflect.Map || fe.Kind() == reflect.Array
	switch fe.Tag() {
	case "required":
		if collection {
			return "needs at least one entry"
		}
		return "is required"
	case "min":
		if collection {
			if fe.Param() == "1" {
				return "needs at least one entry"
			}
			return "needs at least " + fe.Param() + " entries"
		}
		return fmt.Sprintf("is %v; it must be at least %s", fe.Value(), fe.Param())
	case "max":
		if collection {
			return "has more than " + fe.Param() + " entries"
		}
		return fmt.Sprintf("is %v; it must be at most %s", fe.Value(), fe.Param())
	case "oneof":
		return fmt.Sprintf("%q is not one of %s", fmt.Sprint(fe.Value()), strings.Join(strings.Fields(fe.Param()), ", "))
	}
	return fmt.Sprintf("fails the %q rule", fe.Tag())
}
