package endpoint

import (
	"io"
	"os"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// RunFigures are one run's figures per line (indexed like the lines they
// were read for), and how many results matched no line.
type RunFigures struct {
	Lines []report.Figures
	// Unmatched counts results whose method and path are no configured
	// line (none in perfgate's own results files).
	Unmatched int
}

// Read summarises the vegeta results file at path per line. Each line's
// figures are what a run's figures hold for the whole mix (experiment
// takes them from the same vegeta metrics): requests, the p50, p90 and
// p99 latency, throughput (successful responses per second of sending,
// the run's sending time and wait) and error rate (responses outside 2xx–3xx
// or no response, over requests). A line without results has zero
// Requests.
func Read(path string, lines []Line, sending time.Duration) (RunFigures, error) {
	f, err := os.Open(path)
	if err != nil {
		return RunFigures{}, err
	}
	defer f.Close()
	return decode(f, lines, sending)
}

func decode(r io.Reader, lines []Line, sending time.Duration) (RunFigures, error) {
	index := make(map[Line]int, len(lines))
	for i, l := range lines {
		index[l] = i
	}
	metrics := make([]vegeta.Metrics, len(lines))
	var out RunFigures
	err := load.ReadResults(r, func(res *vegeta.Result) error {
		i, ok := index[Line{Method: res.Method, Path: pathOf(res.URL)}]
		if !ok {
			out.Unmatched++
			return nil
		}
		metrics[i].Add(res)
		return nil
	})
	if err != nil {
		return RunFigures{}, err
	}
	out.Lines = make([]report.Figures, len(lines))
	for i := range metrics {
		out.Lines[i] = figures(&metrics[i], sending)
	}
	return out, nil
}

// figures are one line's figures from its vegeta metrics; its throughput
// is over sending, the window's time spent sending and waiting (a window
// sent in two halves has a pause between them that vegeta's own duration
// would count).
func figures(m *vegeta.Metrics, sending time.Duration) report.Figures {
	m.Close()
	if m.Requests == 0 {
		return report.Figures{}
	}
	return report.Figures{
		Requests:     m.Requests,
		LatencyP50Ms: ms(m.Latencies.P50),
		LatencyP90Ms: ms(m.Latencies.P90),
		LatencyP99Ms: ms(m.Latencies.P99),
		LatencyMaxMs: ms(m.Latencies.Max),
		Throughput:   throughput(m, sending),
		ErrorRate:    1 - m.Success,
	}
}

// throughput is m's successful responses per second of sending; vegeta's
// own when sending is unknown (zero).
func throughput(m *vegeta.Metrics, sending time.Duration) float64 {
	if sending <= 0 {
		return m.Throughput
	}
	return m.Success * float64(m.Requests) / sending.Seconds()
}

// pathOf is the path and query of a result's URL, which is the service's
// base URL (scheme and authority, no path) followed by the configured
// path.
func pathOf(url string) string {
	_, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
