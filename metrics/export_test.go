package metrics

import "github.com/prometheus/client_golang/prometheus"

// Decisions is the decision counter, for the tests; a site reads every
// series from the Registerer it gave New.
func (m *Metrics) Decisions() *prometheus.CounterVec { return m.decisions }

// DocumentsCounter is the documents counter, for the tests.
func (m *Metrics) DocumentsCounter() *prometheus.CounterVec { return m.documents }
