//go:build race

package testtools

// Race reports whether the race detector is on.
const Race = true

// RaceSlowdown scales the time budgets that tests hold real servers to:
// the race detector makes Go code 5 to 10 times slower, so a default tuned
// for production (the Failover's store timeout) measures the detector
// instead. The tests run without it too, with the defaults.
const RaceSlowdown = 5
