package enforcer

// RaceEnabled tells the external tests whether allocation counts mean
// anything (see raceEnabled).
var RaceEnabled = raceEnabled
