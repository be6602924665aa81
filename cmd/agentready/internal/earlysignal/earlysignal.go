// Package earlysignal catches SIGHUP from the program's first instant.
//
// Until a program asks for SIGHUP (signal.Notify), the Go runtime answers
// it with the default action, which ends the process: agentready serve,
// reloaded by SIGHUP, would die if one came while it starts (the
// declaration parsed, Redis checked, the listener bound). Package main's
// own init runs after every package it imports (jsonschema's alone takes
// milliseconds); this package imports only os/signal, and sorts before
// the others by import path, so it is initialised among the first (Go
// 1.21's initialisation order): about a millisecond after the process
// starts rather than tens of them.
package earlysignal

import (
	"os"
	"os/signal"
	"syscall"
)

// HUP receives SIGHUP from the program's initialisation on; a signal
// arriving before anyone reads it waits there (one is enough to say
// "reload").
var HUP = make(chan os.Signal, 1)

func init() { signal.Notify(HUP, syscall.SIGHUP) }

// Release gives SIGHUP its default action back, for a program that does
// not reload on it after all.
func Release() {
	signal.Stop(HUP)
	signal.Reset(syscall.SIGHUP)
}
