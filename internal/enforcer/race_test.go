//go:build race

package enforcer

// raceEnabled: under the race detector sync.Pool drops items at random,
// so allocation counts are not asserted.
const raceEnabled = true
