package policy

import "bytes"

// node is a radix-trie node over the rules' literal prefixes. The path from
// the root spells a prefix; rules lists the rules (as precedence ranks, in
// ascending order) whose literal prefix ends here.
type node struct {
	label string  // edge label from the parent
	first []byte  // first byte of each child's label, parallel to kids
	kids  []*node // children; labels start with distinct bytes
	rules []int32
}

// child returns the child whose label starts with c, or nil. first is at
// most 256 bytes long; most nodes have a few children, which a loop the
// compiler inlines finds sooner than a call to IndexByte, which scans the
// rest quickly.
func (n *node) child(c byte) *node {
	if len(n.first) <= 8 {
		for i, f := range n.first {
			if f == c {
				return n.kids[i]
			}
		}
		return nil
	}
	if i := bytes.IndexByte(n.first, c); i >= 0 {
		return n.kids[i]
	}
	return nil
}

// insert adds rule rank ri under key, splitting an edge where key leaves it.
func (n *node) insert(key string, ri int32) {
	for key != "" {
		i := bytes.IndexByte(n.first, key[0])
		if i < 0 {
			n.first = append(n.first, key[0])
			n.kids = append(n.kids, &node{label: key, rules: []int32{ri}})
			return
		}
		c := n.kids[i]
		l := commonPrefix(key, c.label)
		if l < len(c.label) {
			mid := &node{label: c.label[:l], first: []byte{c.label[l]}, kids: []*node{c}}
			c.label = c.label[l:]
			n.kids[i] = mid
			c = mid
		}
		key = key[l:]
		n = c
	}
	n.rules = append(n.rules, ri)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
