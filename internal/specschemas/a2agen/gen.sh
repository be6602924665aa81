#!/bin/bash
# Generates the A2A v1.0 JSON Schema (../a2a_v1.0.1_a2a.json) from
# specification/a2a.proto at A2A v1.0.1, following the A2A repository's
# scripts/proto_to_json_schema.sh at that tag step by step. Its protoc step
# runs as `go run . protoc` (protoc is no Go module, and where this was
# generated only the Go module proxy was reachable): the same plugin,
# handed the request protoc would build. The REQUIRED rules (A2A 1.0
# section 5.7) and the bundle-local references are this directory's
# additions.
#
# Usage: gen.sh <a2a.proto at v1.0.1> <output.json>
#   git -C A2A show v1.0.1:specification/a2a.proto > /tmp/a2a.proto
#   ./gen.sh /tmp/a2a.proto ../a2a_v1.0.1_a2a.json
set -euo pipefail
# This directory is a module of its own, outside the repository's go.work.
export GOWORK=off
PROTO_FILE=${1:?a2a.proto}
OUTPUT=${2:?output.json}
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TEMP_DIR=$(mktemp -d)
trap 'rm -rf "$TEMP_DIR"' EXIT

# The plugin the script requires (bufbuild/protoschema-plugins), pinned.
GOBIN="$TEMP_DIR/bin" go install github.com/bufbuild/protoschema-plugins/cmd/protoc-gen-jsonschema@v0.6.0
PLUGIN="$TEMP_DIR/bin/protoc-gen-jsonschema"
[[ "$("$PLUGIN" --version)" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]

# Step 0 of the script: drop the snippet and linter comment lines.
mkdir "$TEMP_DIR/gen"
grep -v -e "// --8<--" -e "// protolint:" "$PROTO_FILE" >"$TEMP_DIR/a2a.proto"

# Step 1: protoc --jsonschema_out=DIR --jsonschema_opt=target=json a2a.proto
(cd "$HERE" && go run . protoc -proto "$TEMP_DIR/a2a.proto" -plugin "$PLUGIN" -out "$TEMP_DIR/gen")

# Added: the REQUIRED rules, into each message's file.
(cd "$HERE" && go run . required -proto "$TEMP_DIR/a2a.proto" -out "$TEMP_DIR/gen")

# Step 2: the script's jq bundle, verbatim.
jq -s '
  (if .[0]."$schema" then .[0]."$schema" else "http://json-schema.org/draft-07/schema#" end) as $schema |
  (reduce .[] as $item ({};
    if $item.title then
      . + {($item.title): ($item | del(."$id"))}
    else
      .
    end
  )) as $defs |
  {
    "$schema": $schema,
    title: "A2A Protocol Schemas",
    description: "Non-normative JSON Schema bundle extracted from proto definitions.",
    version: "v1",
    definitions: $defs
  }
' "$TEMP_DIR"/gen/*.json >"$TEMP_DIR/bundle.json"

# Added: references to the files become references to their definitions.
(cd "$HERE" && go run . refs -out "$TEMP_DIR/gen" <"$TEMP_DIR/bundle.json" >"$OUTPUT")
echo "✓ Generated $OUTPUT with $(jq '.definitions | length' "$OUTPUT") definitions" >&2
