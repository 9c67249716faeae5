package trend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// TestPairedSimulation measures what paired nightlies find, through the
// code the nightly runs: each night is 14 duet rounds of CPU (base and
// head, the head's log ratio drawn at the per-round noise measured in
// real paired nights, docs/trends-detection.md), estimated by
// verdict.PairedEstimates, kept as a history entry, and read by
// buildSeries and findSteps. Noise is drawn normal and, for heavy tails,
// Student's t with 3 degrees of freedom scaled to the same SD.
//
//	PERFGATE_PAIRED_SIM=1 PERFGATE_PAIRED_SD=0.016 go test ./internal/trend -run PairedSimulation -v
func TestPairedSimulation(t *testing.T) {
	if os.Getenv("PERFGATE_PAIRED_SIM") == "" {
		t.Skip("set PERFGATE_PAIRED_SIM=1 (and PERFGATE_PAIRED_SD to the measured per-round SD) to run the simulation")
	}
	sd, err := strconv.ParseFloat(os.Getenv("PERFGATE_PAIRED_SD"), 64)
	if err != nil || sd <= 0 {
		t.Fatalf("PERFGATE_PAIRED_SD=%q: want the per-round SD of CPU log ratios, a fraction such as 0.016", os.Getenv("PERFGATE_PAIRED_SD"))
	}
	const rounds = 14
	settings := Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment}
	var b strings.Builder
	fmt.Fprintf(&b, "per-round SD %.2f%%, %d rounds a night, min step %.0f%%\n\n", 100*sd, rounds, 100*settings.MinMagnitude)
	fmt.Fprintln(&b, "| noise | flat nights | false steps | per 100 nights | SD of the nights' estimates | the chain's stated SD over the SD of chains after 99 nights |\n|---|---:|---:|---:|---:|---:|")
	for _, heavy := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(11, uint64(len(b.String()))))
		const sequences, nights = 200, 100
		falseSteps, estimates, chains, stated := 0, []float64{}, []float64{}, []float64{}
		for range sequences {
			entries := simulatedNights(nights, -1, 0, sd, heavy, rounds, rng)
			for _, e := range entries[1:] {
				estimates = append(estimates, math.Log1p(e.Paired.Metrics["cpu"].Estimate))
			}
			falseSteps += stepsOf(entries, settings)
			if c := cpuChain(entries); c != nil {
				chains = append(chains, math.Log1p(c.Change))
				stated = append(stated, (math.Log1p(c.CI[1])-math.Log1p(c.CI[0]))/2/twoSidedZ(c.Level))
			}
		}
		flat := sequences * (nights - 1)
		fmt.Fprintf(&b, "| %s | %d | %d | %.3f | %.2f%% | %.2f |\n", noiseName(heavy), flat, falseSteps, 100*float64(falseSteps)/float64(flat), 100*stats.SD(estimates),
			stats.Median(stated)/stats.SD(chains))
	}
	fmt.Fprintln(&b, "\n| step | noise | step nights | found on the step's night | found within 2 nights | other steps |\n|---:|---|---:|---:|---:|---:|")
	for _, step := range []float64{0.02, 0.03, 0.05} {
		for _, heavy := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(13, uint64(1000*step)))
			const sequences = 1000
			onNight, within2, others := 0, 0, 0
			for range sequences {
				entries := simulatedNights(12, 8, step, sd, heavy, rounds, rng)
				found := stepIndexes(entries, settings)
				if found[8] {
					onNight++
				}
				if found[8] || found[9] {
					within2++
				}
				for i := range found {
					if i != 8 && i != 9 {
						others++
					}
				}
			}
			fmt.Fprintf(&b, "| +%.0f%% | %s | %d | %.1f%% | %.1f%% | %d |\n", 100*step, noiseName(heavy), sequences, 100*float64(onNight)/sequences, 100*float64(within2)/sequences, others)
		}
	}
	t.Log("\n" + b.String())
}

// simulatedNights is a history of n nights of one commit each, every night
// after the first paired with the one before; from night stepAt on the
// code costs step more CPU.
func simulatedNights(n, stepAt int, step, sd float64, heavy bool, rounds int, rng *rand.Rand) []history.Entry {
	var out []history.Entry
	for i := range n {
		commit := fmt.Sprintf("%040x", i+1)
		e := history.Entry{Schema: history.Schema, Kind: history.KindEntry, ID: commit + "@x", Config: "perfgate", Commit: commit,
			Time: time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC).AddDate(0, 0, i), Verdict: report.Pass,
			Fingerprint: history.Fingerprint{Machine: "0000000000a1"},
			Metrics:     map[string]history.Summary{"cpu": {Unit: "µs/req", Median: 300 * math.Exp(0.1*rng.NormFloat64()), N: rounds}}}
		if i > 0 {
			shift := 0.0
			if i == stepAt {
				shift = math.Log1p(step)
			}
			var runs []report.Run
			for r := 1; r <= rounds; r++ {
				base := 300 * math.Exp(0.05*rng.NormFloat64()) // the round's drift, shared by both sides
				head := base * math.Exp(shift+sd*draw(heavy, rng))
				runs = append(runs,
					report.Run{Side: "base", Pair: r, Valid: true, Figures: report.Figures{Requests: 1000, CPUSource: "cgroup", CPUMicrosPerRequest: base}},
					report.Run{Side: "head", Pair: r, Valid: true, Figures: report.Figures{Requests: 1000, CPUSource: "cgroup", CPUMicrosPerRequest: head}})
			}
			e.Paired = &history.Paired{With: out[i-1].Commit, Experiment: "duet", Metrics: map[string]history.PairedEstimate{}}
			for _, p := range verdict.PairedEstimates(runs) {
				if p.Name == "cpu" {
					e.Paired.Metrics["cpu"] = history.PairedEstimate{Estimate: p.Estimate, CI: p.CI, Level: p.Level, Pairs: p.Pairs}
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// draw is one unit-SD draw: normal, or Student's t with 3 degrees of
// freedom (variance 3) scaled to SD 1.
func draw(heavy bool, rng *rand.Rand) float64 {
	z := rng.NormFloat64()
	if !heavy {
		return z
	}
	chi := 0.0
	for range 3 {
		x := rng.NormFloat64()
		chi += x * x
	}
	return z / math.Sqrt(chi/3) / math.Sqrt(3)
}

func noiseName(heavy bool) string {
	if heavy {
		return "t, 3 df"
	}
	return "normal"
}

// cpuChain is the CPU series' chain of the nights.
func cpuChain(entries []history.Entry) *Chain {
	for _, sr := range buildSeries(entries) {
		if sr.Metric == "cpu" {
			return sr.Chain
		}
	}
	return nil
}

// stepsOf counts the CPU steps findSteps reads from the nights.
func stepsOf(entries []history.Entry, s Settings) int {
	return len(stepIndexes(entries, s))
}

// stepIndexes are the nights at which findSteps puts a CPU step.
func stepIndexes(entries []history.Entry, s Settings) map[int]bool {
	series := buildSeries(entries)
	findSteps(series, s)
	found := map[int]bool{}
	for _, sr := range series {
		if sr.Metric == "cpu" {
			for _, st := range sr.Steps {
				found[st.Index] = true
			}
		}
	}
	return found
}
