package config

import (
	"fmt"
	"strconv"
	"time"
)

// The upper bounds of perfgate.yml's durations, rate and timeouts. The
// file comes from the pull request, and a gate runs inside a CI job: a
// GitHub-hosted job is cancelled after 6 hours, so a gate that cannot
// finish in that time only ties up a runner and reports nothing. Each
// bound is far above what a useful gate needs (the defaults are 5s
// windows at 500 requests per second).
const (
	// MaxRate bounds load.rate. The generator runs on the runner, beside
	// the service, over loopback: a duet sends twice the rate and its
	// profile rounds up to 4x load.rate, so 20,000 per side is already
	// 160,000 requests per second at the peak, beyond what a 2- or 4-CPU
	// runner's generator sends on time (validity.max_generator_cpu would
	// fail every run).
	MaxRate = 20_000
	// MaxInFlight bounds load.rate × load.timeout: an open-model
	// generator keeps sending while a stalled service answers nothing, so
	// up to that many requests (each a goroutine, a connection and up to
	// load.MaxResponseBody of buffer) are in flight at once.
	MaxInFlight = 100_000
	// MaxWarmup bounds load.warmup: the service is warm long before.
	MaxWarmup = Duration(5 * time.Minute)
	// MaxWindow bounds load.duration: more pairs narrow an estimate more
	// than longer windows do, and each window's profiles are held in
	// memory whole.
	MaxWindow = Duration(10 * time.Minute)
	// MaxRequestTimeout bounds load.timeout: a request slower than a
	// minute is an error, not a latency.
	MaxRequestTimeout = Duration(time.Minute)
	// MaxReadyTimeout bounds service.ready_timeout and MaxResetTimeout
	// service.reset_timeout: each may be spent before every run, and a
	// run waits on them.
	MaxReadyTimeout = Duration(10 * time.Minute)
	MaxResetTimeout = Duration(10 * time.Minute)
	// MaxMeasuring bounds the time the measured rounds take at pairs.max
	// (warm-ups and windows, profile rounds included): it leaves an hour
	// of a 6-hour CI job for builds, start-ups, resets and the runs that
	// replace invalid ones.
	MaxMeasuring = Duration(5 * time.Hour)
)

// durationBound is one duration's upper bound: why says what it
// protects, like what to write instead.
type durationBound struct {
	field     string
	value     Duration
	max       Duration
	why, like string
}

// validateBounds checks the upper bounds of the values whose lower bounds
// validate checks; a field that already failed is not reported again.
func (d *diagnostics) validateBounds(c *Config) {
	s, l := &c.Service, &c.Load
	for _, b := range []durationBound{
		{"service.ready_timeout", s.ReadyTimeout, MaxReadyTimeout, "the most perfgate waits for a service to start",
			"like 30s; a service that starts slower should do its slow work once, before it listens"},
		{"service.reset_timeout", s.ResetTimeout, MaxResetTimeout, "the most one reset may take (it runs before every round)",
			"like 30s; restore a snapshot instead of rebuilding the data each time"},
		{"load.warmup", l.Warmup, MaxWarmup, "the longest warm-up perfgate runs before each window", "like 2s"},
		{"load.duration", l.Duration, MaxWindow, "the longest measured window perfgate runs",
			"like 10s; raise pairs instead, which narrows the estimate more"},
		{"load.timeout", l.Timeout, MaxRequestTimeout, "the longest a request may take before it counts as an error", "like 2s"},
	} {
		if b.value > b.max && !d.reported(b.field) {
			d.fail(b.field, b.value.String(), Error{
				Problem: "is longer than " + shortDuration(b.max) + ", " + b.why,
				Want:    "at most " + shortDuration(b.max) + ", " + b.like,
			})
		}
	}
	if l.Rate > MaxRate && !d.reported("load.rate") {
		d.fail("load.rate", strconv.FormatFloat(l.Rate, 'g', -1, 64), Error{
			Problem: fmt.Sprintf("is more than %d requests per second, the most one runner's load generator sends on time (a duet sends twice it, profile rounds up to 4x)", MaxRate),
			Want:    fmt.Sprintf("at most %d, like 500; a heavier request mix measures more code per request at a lower rate", MaxRate),
		})
	}
	if d.anyReported("load.rate", "load.timeout") {
		return
	}
	if inFlight := l.Rate * time.Duration(l.Timeout).Seconds(); inFlight > MaxInFlight {
		d.fail("load.timeout", l.Timeout.String(), Error{
			Problem: fmt.Sprintf("at load.rate %g lets %.0f requests be in flight at once when the service stalls, more than %d", l.Rate, inFlight, MaxInFlight),
			Want:    fmt.Sprintf("load.rate × load.timeout of at most %d, like a 2s timeout at 500 requests per second", MaxInFlight),
		})
	}
	if d.anyReported("load.warmup", "load.duration", "pairs", "pairs.max", "profile_rounds", "experiment") {
		return
	}
	if took := measuring(c); took > MaxMeasuring {
		d.fail("pairs.max", strconv.Itoa(c.MaxPairs), Error{
			Problem: fmt.Sprintf("with load.warmup %v and load.duration %v, the %s rounds alone take %s at pairs.max, more than the %s a gate may measure (a CI job is cancelled after 6h)",
				shortDuration(l.Warmup), shortDuration(l.Duration), c.Experiment, shortDuration(took), shortDuration(MaxMeasuring)),
			Want: "fewer pairs, a shorter load.duration or load.warmup, so that pairs.max rounds take at most " + shortDuration(MaxMeasuring),
		})
	}
}

// measuring is the time the measured rounds take at pairs.max: a duet
// round runs both sides at once, a sequential pair one after the other,
// and a duet's profile rounds run windows twice load.duration.
func measuring(c *Config) Duration {
	w, l := c.Load.Warmup, c.Load.Duration
	if c.Experiment == "sequential" {
		return Duration(2*c.MaxPairs) * (w + l)
	}
	return Duration(c.MaxPairs)*(w+l) + Duration(c.ProfileRounds)*(w+2*l)
}

// reported says whether a problem with field was already recorded.
func (d *diagnostics) reported(field string) bool {
	for _, e := range d.errs {
		if e.Field == field {
			return true
		}
	}
	return d.bad[field]
}

func (d *diagnostics) anyReported(fields ...string) bool {
	for _, f := range fields {
		if d.reported(f) {
			return true
		}
	}
	return false
}

// shortDuration writes a bound the way a user would: 10m, 1m, 5h.
func shortDuration(v Duration) string {
	s := time.Duration(v).String()
	for _, zero := range []string{"0s", "0m"} {
		if len(s) > len(zero) && s[len(s)-len(zero):] == zero && s[len(s)-len(zero)-1] >= 'a' {
			s = s[:len(s)-len(zero)]
		}
	}
	return s
}
