package load

import (
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// Summary is one attack's figures, in perfgate's own names (vegeta's
// Metrics struct is no part of any contract). Its JSON form is what the
// in-cluster load generator answers (loadgen); report.json records it as
// report.Load (Report).
type Summary struct {
	Requests uint64 `json:"requests"`
	// RequestsFrom is how many were sent at or after Attack.CountFrom.
	RequestsFrom uint64  `json:"requests_from,omitempty"`
	TargetRate   float64 `json:"target_rate"`
	// AchievedRate is requests sent per second of the planned window.
	AchievedRate float64 `json:"achieved_rate"`
	// Throughput is successful responses per second, waiting included.
	Throughput float64 `json:"throughput"`
	// SuccessRatio is the fraction of 2xx/3xx responses; ErrorRate is 1 - SuccessRatio.
	SuccessRatio float64        `json:"success_ratio"`
	ErrorRate    float64        `json:"error_rate"`
	StatusCodes  map[string]int `json:"status_codes"`
	Errors       []string       `json:"errors,omitempty"`
	Latency      Latency        `json:"latency"`
	BytesIn      uint64         `json:"bytes_in"`
	BytesOut     uint64         `json:"bytes_out"`
	// Duration is the span of sending; Wait is the wait for the last
	// responses after it.
	Duration time.Duration `json:"duration_ns"`
	Wait     time.Duration `json:"wait_ns"`
	// PacerLag is how late requests left versus the constant schedule: a
	// lagging generator, not the service, would cut the offered load.
	PacerLagP99 time.Duration `json:"pacer_lag_p99_ns"`
	PacerLagMax time.Duration `json:"pacer_lag_max_ns"`
	// GeneratorCPUNanos is perfgate's own CPU time during the attack.
	GeneratorCPUNanos  int64 `json:"generator_cpu_ns"`
	GeneratorWallNanos int64 `json:"generator_wall_ns"`
	// Began is when the attack started; RequestsPerSecond counts the
	// requests sent in each second after it (kept in report.Run.Seconds,
	// not in report.Load).
	Began             time.Time `json:"-"`
	RequestsPerSecond []uint64  `json:"-"`
}

// Latency quantiles in nanoseconds.
type Latency struct {
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P95  time.Duration `json:"p95_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
}

// Report is the summary as a run's load records it.
func (s Summary) Report() report.Load {
	return report.Load{
		Requests:           s.Requests,
		RequestsFrom:       s.RequestsFrom,
		TargetRate:         s.TargetRate,
		AchievedRate:       s.AchievedRate,
		Throughput:         s.Throughput,
		SuccessRatio:       s.SuccessRatio,
		ErrorRate:          s.ErrorRate,
		StatusCodes:        s.StatusCodes,
		Errors:             s.Errors,
		Latency:            report.Latency(s.Latency),
		BytesIn:            s.BytesIn,
		BytesOut:           s.BytesOut,
		Duration:           s.Duration,
		Wait:               s.Wait,
		PacerLagP99:        s.PacerLagP99,
		PacerLagMax:        s.PacerLagMax,
		GeneratorCPUNanos:  s.GeneratorCPUNanos,
		GeneratorWallNanos: s.GeneratorWallNanos,
	}
}

func summarise(m *vegeta.Metrics, planned time.Duration) Summary {
	s := Summary{
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
		Latency: Latency{
			Mean: m.Latencies.Mean, P50: m.Latencies.P50, P90: m.Latencies.P90,
			P95: m.Latencies.P95, P99: m.Latencies.P99, Max: m.Latencies.Max,
		},
	}
	if m.Requests == 0 {
		s.ErrorRate = 0
	}
	if planned > 0 {
		s.AchievedRate = float64(m.Requests) / planned.Seconds()
	}
	return s
}
