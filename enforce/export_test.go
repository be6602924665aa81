package enforce

// RaceEnabled tells the external tests whether allocation counts mean
// anything (see raceEnabled).
var RaceEnabled = raceEnabled

// The error types Failover wraps, for errors.As in the external tests.
type (
	UnavailableError  = unavailableError
	QueueTimeoutError = queueTimeoutError
)
