package hints

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// retention is what head kept over base per 1,000 requests in one of the
// catalog's leak metrics (goroutines, heap).
type retention struct {
	// measured is false when the report has no such figure (a service
	// without pprof, a report from before the leak metrics).
	measured bool
	// grew says the change is above the metric's gate threshold.
	grew bool
	// undecided says the paired comparison could not tell the change
	// from the threshold (its outcome is inconclusive).
	undecided bool
	// change is the paired estimate when the metric was compared, else
	// the difference of the sides' medians; evidence says which.
	change   float64
	evidence string
}

// retained reads a leak metric: the paired comparison's estimate when the
// report has one (the gate had enough valid pairs), else the medians. Like
// gcPressure it reads the estimate, not the outcome: the evidence is the
// same whether or not this run had the pairs to call it significant.
func retained(rep *report.Report, m *metric.Metric) retention {
	var r retention
	if c := compared(rep, m); c != nil && c.Pairs > 0 {
		r = retention{measured: true, change: c.Delta, undecided: c.Outcome == report.Inconclusive,
			evidence: fmt.Sprintf("%s retained per 1,000 requests: %s → %s, paired estimate %s over %d pairs", m.Name, m.Format(c.Base), m.Format(c.Head), m.FormatChange(c.Delta), c.Pairs)}
	} else if md := median(rep, m); md != nil && md.BaseRuns > 0 && md.HeadRuns > 0 {
		r = retention{measured: true, change: md.Head - md.Base,
			evidence: fmt.Sprintf("%s retained per 1,000 requests, medians over valid runs: %s → %s", m.Name, m.Format(md.Base), m.Format(md.Head))}
	}
	r.grew = r.measured && r.change > m.Threshold(rep.Config.Gate)
	return r
}

// goroutineGrowth fires when head ends its windows with many more
// goroutines (at least 10, and twice base) on a stack through one
// function, unless the goroutines metric measured the growth over the
// window and found none beyond gate.goroutines: then the extra goroutines
// are requests in flight at the window's end (a slower head), not a leak.
// It also fires on the metric alone, naming no function, when the
// goroutine profile was not captured. Runtime frames (gopark, selectgo,
// goexit) are on every parked stack and say nothing, so the function named
// is the code that holds them.
func goroutineGrowth(rep *report.Report) []report.Hint {
	var best *report.Function
	for i, f := range rep.Functions {
		if f.Profile == "goroutine" && f.Kind == "cum" && !strings.HasPrefix(f.Name, "runtime.") &&
			f.Delta >= 10 && f.Head >= 2*f.Base && (best == nil || f.Delta > best.Delta) {
			best = &rep.Functions[i]
		}
	}
	leak := retained(rep, metric.Goroutines)
	const cause = "goroutines started per request that never finish (a leak: a context that is never cancelled, an unread channel, a ticker never stopped)"
	switch {
	case leak.measured && !leak.grew:
		return nil
	case best != nil:
		h := report.Hint{
			Rule:     "goroutine-growth",
			Message:  fmt.Sprintf("%.0f more goroutines are alive in %s at the end of each window: %s", best.Delta, best.Name, cause),
			Evidence: fmt.Sprintf("goroutine profile at window end, cum %s: %.4g → %.4g goroutines per run", best.Name, best.Base, best.Head),
		}
		if leak.measured {
			h.Message = fmt.Sprintf("%.0f more goroutines are alive in %s at the end of each window, and head's goroutine count grows by %s: %s", best.Delta, best.Name, leakRate(metric.Goroutines, leak), cause)
			h.Evidence += "; " + leak.evidence
		}
		return []report.Hint{h}
	case leak.grew:
		return []report.Hint{{
			Rule:     "goroutine-growth",
			Message:  fmt.Sprintf("head's goroutine count grows by %s: %s; the goroutine profile (profiles: goroutine) shows where they wait", leakRate(metric.Goroutines, leak), cause),
			Evidence: leak.evidence,
		}}
	}
	return nil
}

// heapInUse shows the heap profile's bytes in use.
var heapInUse = &metric.Metric{Unit: "B", Display: metric.BinaryBytes}

// heapGrowth fires when head's live heap still grows in the second half of
// each window by more than gate.heap per 1,000 requests (the heap metric:
// live heap after forced GCs halfway through the window and at its end),
// and names the allocation site
// that holds the growth: the function whose in-use bytes in the heap
// profile at the window's end grew most, with the service's own function
// that reaches it. Without the heap metric the profile alone says nothing
// of a leak: in-use bytes also move with when the last GC ran.
func heapGrowth(rep *report.Report) []report.Hint {
	leak := retained(rep, metric.Heap)
	if !leak.grew {
		return nil
	}
	if _, _, fills := fillsUp(rep, leak); fills {
		return nil // undecided, and slowed down: heapFillsUp speaks
	}
	const cause = "memory kept per request (a map or cache without eviction, a slice only appended to, a buffer held after use) grows until the service is OOM-killed; bound it, evict from it, or stop keeping it"
	best := largestHeapGrowth(rep)
	if best == nil {
		return []report.Hint{{
			Rule:     "heap-growth",
			Message:  fmt.Sprintf("head's live heap grows by %s: %s; the heap profile (profiles: heap) shows which allocation site holds it", leakRate(metric.Heap, leak), cause),
			Evidence: leak.evidence,
		}}
	}
	site := describe(rep, best)
	return []report.Hint{{
		Rule: "heap-growth",
		Message: fmt.Sprintf("%s holds %s more live heap at the end of each window, and head's live heap grows by %s: %s",
			site, heapInUse.FormatChange(best.Delta)[1:], leakRate(metric.Heap, leak), cause),
		Evidence: fmt.Sprintf("heap profile (inuse_space) at window end, flat %s: %s → %s per run (%s); %s",
			best.Name, heapInUse.Format(best.Base), heapInUse.Format(best.Head), best.Status, leak.evidence),
	}}
}

// largestHeapGrowth is the allocation site whose in-use bytes in the heap
// profile at the window's end grew most; nil when none grew.
func largestHeapGrowth(rep *report.Report) *report.Function {
	var best *report.Function
	for i, f := range rep.Functions {
		if f.Profile == "heap" && f.Kind == "flat" && f.Delta > 0 && (best == nil || f.Delta > best.Delta) {
			best = &rep.Functions[i]
		}
	}
	return best
}

// heapFillsUp fires when head's live heap grows by more than gate.heap
// per 1,000 requests over base's in the first half of each window but
// not in the second (the heap metric): something that fills up to a bound
// (a cache, a pool, a preallocated buffer), which the gate does not count
// as a leak. The reviewer learns the growth is there, that it stopped at
// this load, and which allocation site holds it, so that the bound can be
// checked against production's traffic.
func heapFillsUp(rep *report.Report) []report.Hint {
	leak := retained(rep, metric.Heap)
	base, head, fills := fillsUp(rep, leak)
	if !fills {
		return nil
	}
	filled := strings.TrimSuffix(strings.TrimPrefix(metric.Heap.FormatChange(head-base), "+"), "/1k req")
	second, notALeak := "no more than gate.heap in the second", "not a leak at this load"
	if leak.grew {
		second = fmt.Sprintf("by much less in the second (%s, which this run could not tell from gate.heap)", metric.Heap.FormatChange(leak.change))
		notALeak = "rather than a leak"
	}
	subject := "head's live heap"
	evidence := fmt.Sprintf("heap growth per 1,000 requests in the first half of each window, medians over valid runs: %s → %s; in the second half: %s", metric.Heap.Format(base), metric.Heap.Format(head), leak.evidence)
	if best := largestHeapGrowth(rep); best != nil {
		subject = fmt.Sprintf("the live heap held by %s", describe(rep, best))
		evidence = fmt.Sprintf("heap profile (inuse_space) at window end, flat %s: %s → %s per run (%s); %s",
			best.Name, heapInUse.Format(best.Base), heapInUse.Format(best.Head), best.Status, evidence)
	}
	return []report.Hint{{
		Rule: "heap-fills-up",
		Message: fmt.Sprintf("%s grows by %s more per 1,000 requests than base's in the first half of each window, and %s: something that fills up to a bound (a cache, a pool, a buffer), %s; check that its bound fits production's traffic",
			subject, filled, second, notALeak),
		Evidence: evidence,
	}}
}

// fillsUp says whether head's live heap grew by more than gate.heap per
// 1,000 requests over base's in the windows' first halves and then
// stopped: no more than gate.heap in the second halves (the heap metric),
// or, where the paired comparison could not tell its estimate from the
// threshold, at most half the first halves' growth. A short window (a few
// hundred requests a half) catches the tail of a cache's filling and a
// map's churn in the second half, near the threshold; a leak grows in
// both halves alike. base and head are the first halves' medians.
func fillsUp(rep *report.Report, leak retention) (base, head float64, ok bool) {
	if !leak.measured || leak.grew && !leak.undecided {
		return 0, 0, false
	}
	base, head, ok = firstHalfHeap(rep)
	if !ok || head-base <= metric.Heap.Threshold(rep.Config.Gate) {
		return 0, 0, false
	}
	if leak.grew && leak.change > (head-base)/2 {
		return 0, 0, false
	}
	return base, head, true
}

// firstHalfHeap is each side's median, over its valid gating runs, of the
// live heap's growth per 1,000 requests in the first half of the window.
func firstHalfHeap(rep *report.Report) (base, head float64, ok bool) {
	growth := map[string][]float64{}
	for _, r := range rep.Runs {
		if r.Valid && !r.ProfileRound && r.Figures.HeapGrowthFirstHalfBytesPer1k != nil {
			growth[r.Side] = append(growth[r.Side], *r.Figures.HeapGrowthFirstHalfBytesPer1k)
		}
	}
	b, h := growth["base"], growth["head"]
	if len(b) == 0 || len(h) == 0 {
		return 0, 0, false
	}
	return stats.Median(b), stats.Median(h), true
}

// leakRate says how much more head keeps per 1,000 requests than base
// ("3.9 MiB more per 1,000 requests than base's"); leak.change is above a
// threshold that is never negative.
func leakRate(m *metric.Metric, leak retention) string {
	amount := strings.TrimSuffix(strings.TrimPrefix(m.FormatChange(leak.change), "+"), "/1k req")
	return amount + " more per 1,000 requests than base's"
}
