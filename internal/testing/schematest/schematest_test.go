package schematest_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/testing/schematest"
)

// TestEverySchemaCompiles guards the compile step itself: a schema that
// silently failed to load would make every validation pass.
func TestEverySchemaCompiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(schematest.Dir(t), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no schemas in %s", schematest.Dir(t))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			a, b := schematest.Compile(t, filepath.Base(f)), schematest.Compile(t, filepath.Base(f))
			if a != b {
				t.Error("compiled twice")
			}
		})
	}
}

// TestFormatAssertions proves that the schemas reject what only a format
// forbids, in both drafts the specifications use.
func TestFormatAssertions(t *testing.T) {
	tests := []struct {
		name, schema, doc string
		fails             string // substring of the validation error; "" when valid
	}{
		{"draft-car minimal", "draft-car_agents-json.schema.json",
			`{"specVersion":"1.0","site":{"name":"x","url":"https://x.example"},"capabilities":[],"access":{"allow":[],"disallow":[]},"agents":{}}`, ""},
		{"draft-car without site", "draft-car_agents-json.schema.json", `{"specVersion":"1.0"}`, "'site'"},
		{"2020-12 date-time", "draft-car_agents-json.schema.json",
			`{"specVersion":"1.0","generatedAt":"yesterday","site":{"name":"x","url":"https://x.example"},"capabilities":[],"access":{"allow":[],"disallow":[]},"agents":{}}`, "date-time"},
		{"2020-12 email", "draft-car_agents-json.schema.json",
			`{"specVersion":"1.0","site":{"name":"x","url":"https://x.example","contact":"not an address"},"capabilities":[],"access":{"allow":[],"disallow":[]},"agents":{}}`, "email"},
		{"v0.1.0 minimal", "agents-protocol_agents.schema.json",
			`{"protocol_version":"0.1.0","site":{"name":"x","url":"https://x.example"},"capabilities":[{"name":"a","endpoint":"/a","method":"GET"}]}`, ""},
		{"draft-07 uri", "agents-protocol_agents.schema.json",
			`{"protocol_version":"0.1.0","site":{"name":"x","url":"not a uri"},"capabilities":[{"name":"a","endpoint":"/a","method":"GET"}]}`, "uri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schematest.Check(t, tt.schema, []byte(tt.doc))
			if tt.fails == "" {
				if err != nil {
					t.Fatalf("Check = %v, want valid", err)
				}
				schematest.Validate(t, tt.schema, []byte(tt.doc))
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.fails) {
				t.Fatalf("Check = %v, want an error naming %s", err, tt.fails)
			}
		})
	}
}

// TestDirFromSubdirectory: the schemas are found from any directory of the
// module, as go test runs each package in its own.
func TestDirFromSubdirectory(t *testing.T) {
	want := schematest.Dir(t)
	t.Chdir(want)
	if got := schematest.Dir(t); got != want {
		t.Fatalf("Dir = %q from %q, want %q", got, want, want)
	}
}

// TestFailures: what cannot be answered fails the test instead of passing.
func TestFailures(t *testing.T) {
	tests := []struct {
		name string
		run  func(t testing.TB)
		want string
	}{
		{"invalid document", func(t testing.TB) {
			schematest.Validate(t, "draft-car_agents-json.schema.json", []byte(`{"specVersion":"1.0"}`))
		}, "does not validate"},
		{"not JSON", func(t testing.TB) {
			_ = schematest.Check(t, "draft-car_agents-json.schema.json", []byte(`{"specVersion":`))
		}, "not JSON"},
		{"missing schema", func(t testing.TB) {
			schematest.Compile(t, "no-such.schema.json")
		}, "compile no-such.schema.json"},
		{"outside the module", func(t testing.TB) {
			schematest.Dir(t)
		}, "no go.mod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "outside the module" {
				t.Chdir(t.TempDir())
			}
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				tt.run(r)
			}()
			<-done
			if !strings.Contains(r.fatal, tt.want) {
				t.Fatalf("fatal = %q, want one containing %q", r.fatal, tt.want)
			}
		})
	}
}

// recorder is a testing.TB whose Fatal records the message and stops the
// calling goroutine, as testing.T does, without failing the real test.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
