// Package keyesc escapes the parts of store keys, for the in-memory and
// Redis rate-limit stores alike, so that no two buckets share a key.
package keyesc

// Append writes s with '|' and the backslash escaped by a backslash.
func Append(dst []byte, s string) []byte { return AppendBy(dst, s, '|') }

// AppendBy writes s with sep and the backslash escaped by a backslash, so
// that the first unescaped sep ends s whatever it holds.
func AppendBy(dst []byte, s string, sep byte) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == sep || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return dst
}
