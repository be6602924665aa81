package policy

// nameTable is an open-addressing hash table from names to classes,
// compared case-insensitively (ASCII). Classify looks up every product
// token and most tokens of a browser are absent, so the table is built for
// the miss: the hash reads only a token's length and its first and last
// two bytes, folded to lower case, and the slots, at most a quarter full,
// keep the full hash, so a miss usually costs one hash and one load, and
// the case-folding comparison runs only on a hash hit. The table is built
// once and never changes, so its probe sequences are fixed: tokens chosen
// by an attacker can cost at most one comparison of maxNameLen bytes per
// slot of the longest probe sequence.
type nameTable struct {
	slots   []slot // power-of-two length
	mask    uint32 // len(slots)-1
	entries []nameEntry
}

type slot struct {
	hash  uint32
	entry int32 // index+1 into entries; 0 is empty
}

type nameEntry struct {
	key   string // lower case, 1 to maxNameLen bytes
	class Class
}

func newNameTable(entries []nameEntry) nameTable {
	size := 16
	for size < 4*len(entries) {
		size *= 2
	}
	mask := uint32(size - 1)
	t := nameTable{slots: make([]slot, size), mask: mask, entries: entries}
	for i, e := range entries {
		h := hashName(e.key)
		j := h & mask
		for t.slots[j].entry != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = slot{hash: h, entry: int32(i + 1)}
	}
	return t
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hashName hashes the length and the first and last two bytes of a
// non-empty name. Setting bit 0x20 folds ASCII upper case to lower case
// without a branch; it also folds a few punctuation pairs ('@' and '`',
// say), which only costs a comparison on such a collision.
func hashName(s string) uint32 {
	n := len(s)
	b := uint64(s[0]) | uint64(s[min(1, n-1)])<<8 | uint64(s[max(n-2, 0)])<<16 | uint64(s[n-1])<<24
	// The high half of a 64-bit multiply mixes every input bit into the
	// low bits that pick the slot.
	return uint32((b | 0x20202020 | uint64(n)<<32) * 0x9e3779b97f4a7c15 >> 32)
}

// probe walks the probe sequence of name, whose hash is h, from slot j.
func (t *nameTable) probe(name string, h, j uint32) *Class {
	for ; ; j = (j + 1) & t.mask {
		s := t.slots[j]
		if s.entry == 0 {
			return nil
		}
		if s.hash == h {
			if e := &t.entries[s.entry-1]; equalFold(name, e.key) {
				return &e.class
			}
		}
	}
}

// equalFold reports whether s, ASCII-lower-cased, equals lowerKey.
func equalFold(s, lowerKey string) bool {
	if len(s) != len(lowerKey) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lower(s[i]) != lowerKey[i] {
			return false
		}
	}
	return true
}
