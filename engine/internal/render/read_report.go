package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// Limits on a report read from an untrusted copy (the Action's fork-safe
// mode renders what a pull request's job uploaded).
const (
	maxReportBytes = 64 << 20
	maxRuns        = 10000
	maxFunctions   = 10000
	maxListItems   = 1000
	maxFlameNodes  = 200000
	maxFlameDepth  = 128
)

var verdicts = map[string]bool{
	report.Pass: true, report.Regression: true, report.Improvement: true,
	report.Inconclusive: true, report.Invalid: true, report.Error: true,
}

// ReadReport parses and checks a report.json that may be hostile: too
// large, wrong types, unknown schema or verdict, absurd list sizes. Missing
// fields are tolerated (they render as absent); strings are escaped and cut
// when rendered.
func ReadReport(r io.Reader) (*report.Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxReportBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxReportBytes {
		return nil, fmt.Errorf("report.json is larger than %d MiB; refusing to read it", maxReportBytes>>20)
	}
	var rep report.Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("report.json is not a valid perfgate report: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("report.json has data after the report object")
	}
	if err := report.CheckKeys(data); err != nil {
		return nil, err
	}
	if rep.Schema != report.Schema {
		return nil, fmt.Errorf("report.json has schema %d; this perfgate renders schema %d", rep.Schema, report.Schema)
	}
	if !verdicts[rep.Verdict] {
		return nil, fmt.Errorf("report.json verdict %s is not one of pass, regression, improvement, inconclusive, invalid, error", Text(rep.Verdict))
	}
	if rep.Mode != "" && rep.Mode != report.ModeGate && rep.Mode != report.ModeRecord {
		return nil, fmt.Errorf("report.json mode %s is not gate or record", Text(rep.Mode))
	}
	for _, list := range []struct {
		name     string
		n, limit int
	}{
		{"runs", len(rep.Runs), maxRuns}, {"functions", len(rep.Functions), maxFunctions},
		{"metrics", len(rep.Metrics), maxListItems}, {"hints", len(rep.Hints), maxListItems},
		{"warnings", len(rep.Warnings), maxListItems}, {"benchstat", len(rep.Benchstat), maxListItems},
		{"endpoints", len(rep.Endpoints), maxListItems}, {"endpoint rows", endpointRows(rep.Endpoints), maxRuns},
	} {
		if list.n > list.limit {
			return nil, fmt.Errorf("report.json has %d %s, more than the %d perfgate ever writes", list.n, list.name, list.limit)
		}
	}
	for kind, root := range rep.Flame {
		if nodes, deep := flameSize(root, 0); nodes > maxFlameNodes || deep {
			return nil, fmt.Errorf("report.json flame graph %s has more than %d frames or is deeper than %d", Text(kind), maxFlameNodes, maxFlameDepth)
		}
	}
	return &rep, nil
}

// flameSize counts a flame tree's nodes and reports whether it is deeper
// than perfgate ever writes (a hostile tree could exhaust the page).
func flameSize(n *report.FlameNode, depth int) (int, bool) {
	if n == nil {
		return 0, false
	}
	if depth > maxFlameDepth {
		return 1, true
	}
	count := 1
	for _, c := range n.Children {
		k, deep := flameSize(c, depth+1)
		count += k
		if deep || count > maxFlameNodes {
			return count, deep
		}
	}
	return count, false
}

// endpointRows counts the rows the endpoints' tables would have.
func endpointRows(endpoints []report.Endpoint) int {
	n := 0
	for _, e := range endpoints {
		n += len(e.Metrics) + len(e.Summary)
	}
	return n
}
