//go:build !race

package agentready_test

const raceEnabled = false
