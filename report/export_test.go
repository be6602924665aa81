package report

import "github.com/agentready/agentready/internal/reportview"

// Snapshot is the report's data model, for the tests that read it in
// process; a site reads the JSON ServeHTTP serves.
type Snapshot = reportview.Snapshot

// Snapshot returns what the report shows now, as ServeHTTP serves it.
func (r *Report) Snapshot() Snapshot { return r.snapshot() }
