package load

import (
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// Summary is one attack's figures: report.Load, the form report.json
// records (in perfgate's own names; vegeta's Metrics struct is no part of
// any contract), and what the attack knows beside it. Its JSON form,
// report.Load's, is also what the in-cluster load generator answers
// (loadgen).
type Summary struct {
	report.Load
	// Began is when the attack started; RequestsPerSecond counts the
	// requests sent in each second after it (kept in report.Run.Seconds,
	// not in report.Load).
	Began             time.Time `json:"-"`
	RequestsPerSecond []uint64  `json:"-"`
}

// Report is the summary as a run's load records it.
func (s Summary) Report() report.Load { return s.Load }

func summarise(m *vegeta.Metrics, planned time.Duration) Summary {
	s := Summary{Load: report.Load{
		Requests:     m.Requests,
		Throughput:   m.Throughput,
		SuccessRatio: m.Success,
		ErrorRate:    1 - m.Success,
		StatusCodes:  m.StatusCodes,
		Errors:       m.Errors,
		BytesIn:      m.BytesIn.Total,
		BytesOut:     m.BytesOut.Total,
		Duration:     m.Duration,
		Wait:         m.Wait,
		Latency: report.Latency{
			Mean: m.Latencies.Mean, P50: m.Latencies.P50, P90: m.Latencies.P90,
			P95: m.Latencies.P95, P99: m.Latencies.P99, Max: m.Latencies.Max,
		},
	}}
	if m.Requests == 0 {
		s.ErrorRate = 0
	}
	if planned > 0 {
		s.AchievedRate = float64(m.Requests) / planned.Seconds()
	}
	return s
}
