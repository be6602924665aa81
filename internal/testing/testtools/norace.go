//go:build !race

package testtools

// Race reports whether the race detector is on.
const Race = false

// RaceSlowdown is 1 without the race detector (see race.go).
const RaceSlowdown = 1
