// Package siteschema hands config/site.schema.json, the JSON Schema of a
// declaration file, to agentready schema. Package config embeds the file
// (go:embed reaches only a package's own directory) and sets JSON when it
// is initialised, so that the file has one copy and config's API no extra
// name; every importer of config sees it set.
package siteschema

// JSON is config/site.schema.json, set by package config.
var JSON []byte
