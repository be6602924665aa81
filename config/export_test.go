package config

// What the external tests read of the declaration file's unexported
// helpers.
var (
	Key      = fileKey
	TagRules = tagRules
)

// Line is Lines.line, for the tests of where a field's line is found.
func (l Lines) Line(field string) int { return l.line(field) }

// FilePath is filePath, for the tests of the file's spelling of a field.
var FilePath = filePath
