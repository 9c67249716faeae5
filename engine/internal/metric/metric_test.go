package metric

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		metric          *Metric
		value, change   float64
		want, wantDelta string
	}{
		{CPU, 312.04, 0.041, "312 µs/req", "+4.1%"},
		{CPU, 373.7, -0.0049, "373.7 µs/req", "-0.5%"},
		{Bytes, 21034.4, 0.37, "20.54 KiB/req", "+37.0%"},
		{GC, 0.0025, 0.24, "0.0025 GC/req", "+24.0%"},
		{LatencyP99, 0.94, 0, "940 µs", "+0.0%"},
		{LatencyP99, 0.3575, 0.041, "357.5 µs", "+4.1%"},
		{LatencyP99, 12.5, 0.041, "12.5 ms", "+4.1%"},
		{Errors, 0.0004, 0.0012, "0.04%", "+0.12 pp"},
		{Errors, 0, -0.0004, "0%", "-0.04 pp"},
		{Throttled, 0.35, 0, "35%", "+0.00 pp"},
		{Goroutines, 0.02, 1.2, "0.02 goroutines/1k req", "+1.2 goroutines/1k req"},
		{Goroutines, -0.3, -0.25, "-0.3 goroutines/1k req", "-0.25 goroutines/1k req"},
		{Heap, 512, 48 << 10, "512 B/1k req", "+48 KiB/1k req"},
		{Heap, 3.5 * (1 << 20), -1536, "3.5 MiB/1k req", "-1.5 KiB/1k req"},
		{MemoryPeak, 35.5, 0.164, "35.5 MiB", "+16.4%"},
	} {
		if got := tt.metric.Format(tt.value); got != tt.want {
			t.Errorf("%s.Format(%v) = %q, want %q", tt.metric.Name, tt.value, got, tt.want)
		}
		if got := tt.metric.FormatChange(tt.change); got != tt.wantDelta {
			t.Errorf("%s.FormatChange(%v) = %q, want %q", tt.metric.Name, tt.change, got, tt.wantDelta)
		}
	}
}

func TestFormatInterval(t *testing.T) {
	for _, tt := range []struct {
		metric    *Metric
		low, high float64
		want      string
	}{
		{CPU, -0.147, -0.02, "-14.7% to -2.0%"},
		{Errors, 0, 0.0012, "+0.00 to +0.12 pp"},
		{Goroutines, -13.25, -1.251, "-13.25 to -1.251 goroutines/1k req"},
		{Heap, 4.15e6, 4.228e6, "+3.958 to +4.032 MiB/1k req"},
		{Heap, -512, 48 << 10, "-0.5 to +48 KiB/1k req"},
		{Heap, 0, 0, "+0 to +0 B/1k req"},
	} {
		if got := tt.metric.FormatInterval(tt.low, tt.high); got != tt.want {
			t.Errorf("%s.FormatInterval(%v, %v) = %q, want %q", tt.metric.Name, tt.low, tt.high, got, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 1: "1", 0.94: "0.94", 373.74: "373.7", 999.96: "1000", 1234.5: "1234", 89.44: "89.44",
		0.00213: "0.00213", 0.000123456: "0.0001235", -0.3: "-0.3", -2500: "-2500", 25: "25",
	} {
		if got := Number(v); got != want {
			t.Errorf("Number(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestPValue(t *testing.T) {
	for p, want := range map[float64]string{1: "1", 0.432: "0.432", 0.0039: "0.0039", 0.18751: "0.188", 1e-5: "1e-05"} {
		if got := PValue(p); got != want {
			t.Errorf("PValue(%v) = %q, want %q", p, got, want)
		}
	}
}

// TestCatalogIsConsistent checks what every entry must have: a unique
// name, a getter, a threshold for compared metrics, a benchstat unit
// benchstat can read, and the leak metrics on the absolute scale.
func TestCatalogIsConsistent(t *testing.T) {
	names := map[string]bool{}
	benchUnits := map[string]bool{}
	g := config.Default().Gate
	for _, m := range Catalog {
		if names[m.Name] {
			t.Errorf("%s is listed twice", m.Name)
		}
		names[m.Name] = true
		if m.Value == nil || m.Unit == "" {
			t.Errorf("%s has no getter or unit", m.Name)
		}
		if m.Compared() && m.Gate.Threshold == nil {
			t.Errorf("%s is compared without a threshold", m.Name)
		}
		if m.Gates(g) && (m.Gate.Key == "" || m.Threshold(g) < 0) {
			t.Errorf("%s gates without a perfgate.yml key or with a negative threshold", m.Name)
		}
		if b := m.Bench; b != nil {
			if strings.ContainsAny(b.Unit, " \t") || benchUnits[b.Unit] || b.Factor == 0 {
				t.Errorf("%s: benchstat unit %q is empty, repeated or has spaces, or its factor is 0", m.Name, b.Unit)
			}
			benchUnits[b.Unit] = true
		}
		if got, ok := Lookup(m.Name); !ok || got != m {
			t.Errorf("Lookup(%q) = %v, %v", m.Name, got, ok)
		}
	}
	for _, leak := range []*Metric{Goroutines, Heap} {
		if leak.Scale != Absolute || !leak.Gates(g) || leak.Bench != nil {
			t.Errorf("%s must be absolute, gate by default and stay out of benchstat", leak.Name)
		}
	}
	if !MemoryPeak.Compared() || MemoryPeak.Gates(g) {
		t.Error("memory_peak must be compared and shown, never gate")
	}
}

// TestLatencyGatesWhenAsked: latency is reported against the CPU threshold
// until gate.latency is set.
func TestLatencyGatesWhenAsked(t *testing.T) {
	g := config.Default().Gate
	if LatencyP99.Gates(g) || LatencyP99.Threshold(g) != float64(g.CPU) {
		t.Errorf("by default latency_p99 gates %v with threshold %v", LatencyP99.Gates(g), LatencyP99.Threshold(g))
	}
	g.Latency = 0.05
	if !LatencyP99.Gates(g) || LatencyP99.Threshold(g) != 0.05 {
		t.Errorf("with gate.latency 5%% latency_p99 gates %v with threshold %v", LatencyP99.Gates(g), LatencyP99.Threshold(g))
	}
}

func TestGetters(t *testing.T) {
	retained, heap := 2.5, 65536.0
	f := report.Figures{CPUSource: "cgroup", CPUMicrosPerRequest: 41, GoroutinesRetainedPer1k: &retained, HeapRetainedBytesPer1k: &heap, MemoryPeakBytes: 48 << 20}
	for _, tt := range []struct {
		metric *Metric
		want   float64
		ok     bool
	}{
		{CPU, 41, true}, {Goroutines, 2.5, true}, {Heap, 65536, true}, {MemoryPeak, 48, true},
		{Allocs, 0, false}, {GC, 0, false}, {Errors, 0, true},
	} {
		if v, ok := tt.metric.Value(f); v != tt.want || ok != tt.ok {
			t.Errorf("%s = %v, %v; want %v, %v", tt.metric.Name, v, ok, tt.want, tt.ok)
		}
	}
	// A run whose service died has neither CPU nor a memory peak.
	if _, ok := CPU.Value(report.Figures{}); ok {
		t.Error("a run without a CPU source has CPU per request")
	}
	if _, ok := MemoryPeak.Value(report.Figures{}); ok {
		t.Error("a run without a peak reading has a memory peak")
	}
}

func TestValuesAndChange(t *testing.T) {
	runs := []report.Run{
		{Side: "base", Valid: true, Figures: report.Figures{ErrorRate: 0.01}},
		{Side: "head", Valid: true, Figures: report.Figures{ErrorRate: 0.03}},
		{Side: "base", Valid: false, Figures: report.Figures{ErrorRate: 0.5}},
		{Side: "base", Valid: true, Figures: report.Figures{ErrorRate: 0.02}},
	}
	if got := Errors.Values(runs, Base); len(got) != 2 || got[0] != 0.01 || got[1] != 0.02 {
		t.Errorf("base errors %v, want the valid runs' [0.01 0.02]", got)
	}
	if d, ok := Errors.Change(0, 0.02); !ok || d != 0.02 {
		t.Errorf("absolute change from 0 = %v, %v", d, ok)
	}
	if _, ok := CPU.Change(0, 10); ok {
		t.Error("a relative change from 0 must have no value")
	}
}

func TestOfUnknownMetric(t *testing.T) {
	if m := Of(report.Metric{Name: "cpu", Unit: "µs/req", Scale: "relative"}); m != CPU {
		t.Errorf("Of(cpu) = %+v, want the catalog entry", m)
	}
	m := Of(report.Metric{Name: "from_the_future", Unit: "ratio", Scale: "absolute"})
	if m.Format(0.5) != "50%" || m.FormatChange(0.01) != "+1.00 pp" {
		t.Errorf("an unknown ratio reads %s, %s", m.Format(0.5), m.FormatChange(0.01))
	}
	if m := OfMedian(report.Median{Name: "odd", Unit: "widgets"}); m.Format(3) != "3 widgets" {
		t.Errorf("an unknown median reads %s", m.Format(3))
	}
}

// TestEveryMetricIsDocumented: report.json's names are a contract, so
// docs/report-schema.md lists each one.
func TestEveryMetricIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/report-schema.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Catalog {
		if !regexp.MustCompile("`" + m.Name + "`").Match(doc) {
			t.Errorf("docs/report-schema.md does not name %s", m.Name)
		}
	}
}

// TestGoroutineEventsAreOverTheSecondHalf: the goroutines metric's growth
// is over the window's second half, so its events and their exposure are
// that half's; a report from before the halves counts the whole window.
func TestGoroutineEventsAreOverTheSecondHalf(t *testing.T) {
	per1k := 4.0 // 3 goroutines over 750 requests
	events, thousands, ok := Goroutines.Events(report.Figures{Requests: 1500, SecondHalfRequests: 750, GoroutinesRetainedPer1k: &per1k})
	if !ok || events != 3 || thousands != 0.75 {
		t.Errorf("second half: %v events over %v thousand requests (ok %v), want 3 over 0.75", events, thousands, ok)
	}
	whole := 2.0 // 3 goroutines over 1,500 requests
	events, thousands, ok = Goroutines.Events(report.Figures{Requests: 1500, GoroutinesRetainedPer1k: &whole})
	if !ok || events != 3 || thousands != 1.5 {
		t.Errorf("whole window: %v events over %v thousand requests (ok %v), want 3 over 1.5", events, thousands, ok)
	}
}

// TestGoroutineEventsLeaveOutAHalfThatOpenedConnections: a half in which
// the load opened inbound connections reached a new peak of requests in
// flight, and pools sized by it grew (an A/A duet on kind: 318 goroutines
// in 44 of 148 such halves, none in 452 others), so its growth is not
// counted as events, and its requests are not counted as exposure.
func TestGoroutineEventsLeaveOutAHalfThatOpenedConnections(t *testing.T) {
	per1k := 16.0 // 12 goroutines over 750 requests, with 27 new connections
	if events, thousands, ok := Goroutines.Events(report.Figures{Requests: 1500, SecondHalfRequests: 750, SecondHalfNewConnections: 27, GoroutinesRetainedPer1k: &per1k}); ok {
		t.Errorf("a half with new connections counts %v events over %v thousand requests, want none", events, thousands)
	}
	if _, _, ok := Goroutines.Events(report.Figures{Requests: 1500, SecondHalfRequests: 750, GoroutinesRetainedPer1k: &per1k}); !ok {
		t.Error("a half without new connections does not count")
	}
}
