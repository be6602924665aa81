package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/agentready/agentready/internal/publish"
)

// schema prints the JSON Schema of a declaration file
// (config/site.schema.json), for editors: it refuses what lint refuses,
// save the cross references JSON Schema cannot express (a capability ID
// named in agents[].capabilities must be declared, IDs and names are
// unique).
func schema(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	rest, code := parseArgs(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if len(rest) != 0 {
		fmt.Fprintf(stderr, "agentready schema: takes no arguments\n\n%s", usage)
		return 2
	}
	b, err := publish.FileSchema()
	if err != nil {
		fmt.Fprintf(stderr, "agentready schema: %v\n", err)
		return 1
	}
	stdout.Write(append(b, '\n'))
	return 0
}
