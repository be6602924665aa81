package agentstxt

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

func BenchmarkParse(b *testing.B) {
	data := []byte(appendixA)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseHostile is an attacker-sized file: MaxSize bytes of lines
// the parser must look at and reject.
func BenchmarkParseHostile(b *testing.B) {
	line := "  Param: " + strings.Repeat("(", 40) + "\n"
	data := []byte("Spec-Version: 1.0\nCapability: a\n" + strings.Repeat(line, (MaxSize-40)/len(line)))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	s := fixtures.OutdoorSupply()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(&s, config.DialectIETFDraft); err != nil {
			b.Fatal(err)
		}
	}
}
