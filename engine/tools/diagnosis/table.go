package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// Gate is one recorded gate of the benchmark.
type Gate struct {
	Judgement
	// Seconds is the whole gate's wall time (both builds included);
	// ProfileSeconds the part its profile rounds took.
	Seconds, ProfileSeconds float64
}

// profileSeconds is the wall time of a report's profile rounds: each
// round's two sides run at the same time, so a round lasts as long as
// its longer side.
func profileSeconds(rep *report.Report) float64 {
	longest := map[int]float64{}
	for _, r := range rep.Runs {
		if r.ProfileRound {
			longest[r.Pair] = max(longest[r.Pair], r.Timing.TotalMs/1000)
		}
	}
	total := 0.0
	for _, s := range longest {
		total += s
	}
	return total
}

// gateDir is "<plant>-<i>".
var gateDir = regexp.MustCompile(`^(.+)-(\d+)$`)

func readGates(dir string) ([]Gate, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var gates []Gate
	for _, e := range entries {
		m := gateDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		g, err := readGate(filepath.Join(dir, e.Name()), m[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		gates = append(gates, g)
	}
	return gates, nil
}

func readGate(dir, plant string) (Gate, error) {
	var rep report.Report
	var places []Place
	var meta struct {
		Seconds float64 `json:"seconds"`
	}
	for name, v := range map[string]any{"report.json": &rep, "planted.json": &places, "gate.json": &meta} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			if name == "report.json" {
				// A gate that wrote no report (a configuration or
				// infrastructure error) still counts, as an error.
				return Gate{Judgement: Judgement{Plant: plant, Verdict: "error", Hint: expectedHint[plant]}}, nil
			}
			return Gate{}, err
		}
		if err := json.Unmarshal(data, v); err != nil {
			return Gate{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return Gate{Judgement: Judge(plant, &rep, places), Seconds: meta.Seconds, ProfileSeconds: profileSeconds(&rep)}, nil
}

// Table is the benchmark's Markdown: one row per plant, then the targets.
func Table(gates []Gate) string {
	byPlant := map[string][]Gate{}
	var plants []string
	for _, g := range gates {
		if byPlant[g.Plant] == nil {
			plants = append(plants, g.Plant)
		}
		byPlant[g.Plant] = append(byPlant[g.Plant], g)
	}
	sort.Strings(plants)
	var b strings.Builder
	b.WriteString("| plant | gates | verdicts | first function in \"Where it changed\" (most often) | planted function named | on the first screen | with an added line | expected hint fired | naming the planted function | functions listed, median |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range plants {
		gs := byPlant[p]
		hint := "-"
		namesPlace := "-"
		if gs[0].Hint != "" {
			hint = fmt.Sprintf("%s: %s", gs[0].Hint, share(gs, func(g Gate) bool { return g.Fired }))
			namesPlace = share(gs, func(g Gate) bool { return g.NamesPlace })
		}
		// An A/A gate planted nothing: nothing to name.
		named, first, line := "-", "-", "-"
		if p != "aa" {
			named, first, line = share(gs, func(g Gate) bool { return g.Named }), share(gs, func(g Gate) bool { return g.OnFirstScreen }),
				share(gs, func(g Gate) bool { return g.LineNamed })
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %d |\n", p, len(gs), verdicts(gs), mostOften(gs),
			named, first, line, hint, namesPlace, medianRows(gs))
	}
	b.WriteString("\n")
	b.WriteString(targets(byPlant))
	b.WriteString(cost(gates))
	return b.String()
}

// cost states what the gates took: their wall time (median, p95) and the
// part of it their profile rounds took.
func cost(gates []Gate) string {
	var total, profile []float64
	for _, g := range gates {
		if g.Seconds > 0 {
			total = append(total, g.Seconds)
			profile = append(profile, g.ProfileSeconds)
		}
	}
	if len(total) == 0 {
		return ""
	}
	return fmt.Sprintf("- gate wall time, both builds included: median %.0f s, p95 %.0f s, max %.0f s (target p95 ≤ 180 s); profile rounds: median %.0f s a gate\n",
		quantile(total, 0.5), quantile(total, 0.95), quantile(total, 1), quantile(profile, 0.5))
}

// quantile is the q-quantile of xs by the nearest rank.
func quantile(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func share(gs []Gate, ok func(Gate) bool) string {
	n := 0
	for _, g := range gs {
		if ok(g) {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(gs))
}

func verdicts(gs []Gate) string {
	count := map[string]int{}
	for _, g := range gs {
		count[g.Verdict]++
	}
	var parts []string
	for _, v := range []string{"regression", "pass", "improvement", "inconclusive", "invalid", "error"} {
		if count[v] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", v, count[v]))
		}
	}
	return strings.Join(parts, ", ")
}

func mostOften(gs []Gate) string {
	count := map[string]int{}
	best := ""
	for _, g := range gs {
		count[g.First]++
		if count[g.First] > count[best] || (count[g.First] == count[best] && g.First < best) {
			best = g.First
		}
	}
	if best == "" {
		return "(none)"
	}
	return fmt.Sprintf("`%s` (%d)", shortName(best), count[best])
}

func medianRows(gs []Gate) int {
	rows := make([]int, len(gs))
	for i, g := range gs {
		rows[i] = g.Rows
	}
	sort.Ints(rows)
	return rows[len(rows)/2]
}

// targets checks issue 20's targets: the planted function named in ≥ 90%
// of the plants' gates; each seed incident's hint in ≥ 90% of its gates;
// no function listed in ≥ 19 of 20 A/A gates.
func targets(byPlant map[string][]Gate) string {
	var b strings.Builder
	named, planted := 0, 0
	for p, gs := range byPlant {
		if p == "aa" {
			continue
		}
		for _, g := range gs {
			planted++
			if g.Named {
				named++
			}
		}
	}
	if planted > 0 {
		fmt.Fprintf(&b, "- planted function named in \"Where it changed\": %d of %d gates (target ≥ 90%%)\n", named, planted)
	}
	var plants []string
	for p := range expectedHint {
		if len(byPlant[p]) > 0 {
			plants = append(plants, p)
		}
	}
	sort.Strings(plants)
	for _, p := range plants {
		fmt.Fprintf(&b, "- %s: %s fired in %s gates (target ≥ 90%%)\n", p, byPlant[p][0].Hint, share(byPlant[p], func(g Gate) bool { return g.Fired }))
	}
	if aa := byPlant["aa"]; len(aa) > 0 {
		fmt.Fprintf(&b, "- A/A gates listing no function: %s (target ≥ 19 of 20)\n", share(aa, func(g Gate) bool { return g.Rows == 0 }))
	}
	return b.String()
}
