package jsontest_test

import (
	"fmt"
	"testing"

	"github.com/agentready/agentready/internal/publish/internal/jsontest"
)

func TestEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"int and float", map[string]any{"n": 1}, map[string]any{"n": 1.0}, true},
		{"struct and map", struct {
			A string `json:"a"`
		}{"x"}, map[string]any{"a": "x"}, true},
		{"string slices", []string{"a"}, []any{"a"}, true},
		{"different", map[string]any{"n": 1}, map[string]any{"n": 2}, false},
		{"nil and empty", nil, map[string]any{}, false},
		{"unencodable", func() {}, func() {}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsontest.Equal(tt.a, tt.b); got != tt.want {
				t.Errorf("Equal = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInOrder(t *testing.T) {
	tests := []struct {
		s     string
		parts []string
		want  bool
	}{
		{"abc", nil, true},
		{"abc", []string{"a", "c"}, true},
		{"abc", []string{"c", "a"}, false},
		{"aa", []string{"a", "a"}, true},
		{"a", []string{"a", "a"}, false},
		{"abab", []string{"ab", "b"}, true},
		{"", []string{""}, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %q", tt.s, tt.parts), func(t *testing.T) {
			if got := jsontest.InOrder(tt.s, tt.parts...); got != tt.want {
				t.Errorf("InOrder = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDecodeAndAssertSame: member order and whitespace play no part.
func TestDecodeAndAssertSame(t *testing.T) {
	if got := jsontest.Decode(t, []byte(`{"a": [1, {"b": null}]}`)); !jsontest.Equal(got, map[string]any{"a": []any{1, map[string]any{"b": nil}}}) {
		t.Errorf("Decode = %v", got)
	}
	jsontest.AssertSame(t, []byte("{\n  \"b\": 2,\n  \"a\": 1\n}\n"), `{"a":1,"b":2}`)
}
