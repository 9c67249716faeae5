package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestUpperBounds: durations, rate and timeouts above what a gate in a CI
// job can use are refused, each with one error naming the field, the
// value as written and the bound; a value at the bound is accepted.
func TestUpperBounds(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		field      string // "" when the file is valid
		value      string
		also       []string
	}{
		{name: "ready_timeout at the bound", yaml: "  ready_timeout: 10m\n"},
		{name: "ready_timeout", yaml: "  ready_timeout: 1h\n", field: "service.ready_timeout", value: "1h",
			also: []string{"is longer than 10m", "want at most 10m"}},
		{name: "reset_timeout at the bound", yaml: "  reset_timeout: 10m\n"},
		{name: "reset_timeout", yaml: "  reset_timeout: 11m\n", field: "service.reset_timeout", value: "11m",
			also: []string{"is longer than 10m", "want at most 10m"}},
		{name: "warmup", yaml: "load:\n  warmup: 6m\n", field: "load.warmup", value: "6m", also: []string{"is longer than 5m", "want at most 5m"}},
		{name: "duration at the bound", yaml: "load:\n  duration: 10m\npairs: {min: 5, max: 20}\n"},
		{name: "duration", yaml: "load:\n  duration: 24h\n", field: "load.duration", value: "24h",
			also: []string{"is longer than 10m", "raise pairs instead"}},
		{name: "timeout", yaml: "load:\n  timeout: 5m\n", field: "load.timeout", value: "5m", also: []string{"is longer than 1m", "want at most 1m"}},
		{name: "rate at the bound", yaml: "load:\n  rate: 20000\n  timeout: 5s\n"},
		{name: "rate", yaml: "load:\n  rate: 1e9\n", field: "load.rate", value: "1e9",
			also: []string{"is more than 20000 requests per second", "want at most 20000"}},
		{name: "requests in flight", yaml: "load:\n  rate: 20000\n  timeout: 30s\n", field: "load.timeout", value: "30s",
			also: []string{"at load.rate 20000 lets 600000 requests be in flight", "want load.rate × load.timeout of at most 100000"}},
		{name: "duet rounds past the budget", yaml: "load:\n  duration: 10m\npairs: {min: 30, max: 40}\n", field: "pairs.max", value: "40",
			also: []string{"with load.warmup 2s and load.duration 10m, the duet rounds alone take 7h41m26s", "at most 5h", "6h"}},
		{name: "sequential pairs past the budget", yaml: "experiment: sequential\nload:\n  duration: 5m\npairs: 30\n", field: "pairs.max", value: "30",
			also: []string{"the sequential rounds alone take 5h2m", "fewer pairs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("perfgate.yml", []byte(svc+tc.yaml))
			if tc.field == "" {
				if err != nil {
					t.Fatalf("a value at the bound: %v", err)
				}
				return
			}
			errs := Errors(err)
			if len(errs) != 1 || errs[0].Field != tc.field {
				t.Fatalf("want one error for %s, got %v", tc.field, err)
			}
			msg := err.Error()
			for _, want := range append([]string{tc.field + ": " + fmt.Sprintf("%q", tc.value)}, tc.also...) {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q: %s", want, msg)
				}
			}
		})
	}
}
