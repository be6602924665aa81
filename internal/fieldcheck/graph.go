package fieldcheck

// Graph is a dependency graph whose Edges remember the field that
// declares them.
type Graph struct {
	Names []string
	Edges [][]Edge
}

// Edge is an edge of a Graph, to node To, declared by Field.
type Edge struct {
	To    int
	Field string
}

// Cycle is a cycle of a Graph.
type Cycle struct {
	Field string   // the field declaring the edge that closes the cycle
	Path  []string // node Names, first repeated at the end
}

// Cycles finds cycles by depth-first search in node order, one per back
// edge, so the report is deterministic.
func (g *Graph) Cycles() []Cycle {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(g.Names))
	var stack []int
	var out []Cycle
	var visit func(n int)
	visit = func(n int) {
		color[n] = grey
		stack = append(stack, n)
		for _, e := range g.Edges[n] {
			switch color[e.To] {
			case white:
				visit(e.To)
			case grey:
				start := len(stack) - 1
				for stack[start] != e.To {
					start--
				}
				var path []string
				for _, m := range stack[start:] {
					path = append(path, g.Names[m])
				}
				out = append(out, Cycle{Field: e.Field, Path: append(path, g.Names[e.To])})
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
	}
	for n := range g.Names {
		if color[n] == white {
			visit(n)
		}
	}
	return out
}

// Depths returns, for each node, the number of Edges of the longest chain
// starting there (-1 when a cycle is reachable) and the edge that starts it.
func (g *Graph) Depths() ([]int, []int) {
	depth := make([]int, len(g.Names))
	next := make([]int, len(g.Names)) // index into Edges[n] of the deepest edge
	state := make([]uint8, len(g.Names))
	var walk func(n int) int
	walk = func(n int) int {
		switch state[n] {
		case 1:
			return -1
		case 2:
			return depth[n]
		}
		state[n] = 1
		best, via := 0, -1
		for k, e := range g.Edges[n] {
			d := walk(e.To)
			if d < 0 {
				best = -1
				break
			}
			if d+1 > best {
				best, via = d+1, k
			}
		}
		state[n] = 2
		depth[n], next[n] = best, via
		return best
	}
	for n := range g.Names {
		walk(n)
	}
	return depth, next
}
