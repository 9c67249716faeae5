package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// A duet's profile rounds never gate, so they may cost CPU for samples:
// the gating rounds leave the shared CPUs mostly idle (the example uses
// about 15% of its CPU), and at the runtime's 100 Hz and its default heap
// sampling (one sample per 512 KiB allocated) three 5-s rounds gave a few
// hundred CPU and allocation samples a side, too few to name a function
// holding 1% of the cost.

// profileMemRate is the heap sampling interval of the profile rounds'
// services: 32 times the default's samples.
const profileMemRate = 16 << 10

// profileBusyShare is how busy a profile round aims to keep the shared
// CPUs and the generator, as a share of their validity limits
// (validity.max_shared_cpu, validity.max_generator_cpu): raised load must
// not make the round invalid.
const profileBusyShare = 0.6

// profileWindows is the profile rounds' window as a multiple of
// load.duration. CPU samples come at 100 Hz of CPU time, and the raised
// load alone cannot buy many: the two sides together may use at most
// validity.max_shared_cpu of their CPUs (the example's gating rounds use
// about 27% of one, its generator 25% of another), so three 5-s rounds at
// the highest valid load give about 300 CPU samples a side, and a
// function holding 5% of the CPU needs about 400 to clear the
// per-function test (attribution/noise.go: z of about 4.4).
const profileWindows = 2

// profileTail is how many whole seconds longer a profile round's windowed
// profiles run than a gating round's, so that they still end after the
// window's counters: a profile round's reads at the window's start take
// longer (two heap profiles with a collection per side, at 32 times the
// samples), and they left 0.01-0.08 s of the gating rounds' 0.3 s
// margin in the hint fixtures, and none for the database example, whose
// profile rounds were all invalid.
const profileTail = 1

// maxProfileLoad caps the profile rounds' load, as a multiple of
// load.rate: far above the gating load, a service's per-request costs
// (batching, queueing) are no longer the ones the gate measured.
const maxProfileLoad = 4

// profilePlan is the config of a duet's profile rounds and the load
// factor it applies: windows profileWindows times as long, and load.rate
// raised until the gating rounds' shared CPU
// use and generator use reach profileBusyShare of their limits, by at
// most maxProfileLoad and never below 1.
func profilePlan(cfg *config.Config, runs []report.Run) (*config.Config, float64) {
	var busy, generator []float64
	for _, r := range runs {
		if !r.Compared() || r.Duet == nil || r.Side != Base {
			continue
		}
		busy = append(busy, r.Duet.SharedCPUBusy)
		generator = append(generator, r.Figures.GeneratorCPURatio)
	}
	factor := float64(maxProfileLoad)
	if b := stats.Median(busy); b > 0 {
		factor = min(factor, profileBusyShare*float64(cfg.Validity.MaxSharedCPU)/b)
	}
	if g := stats.Median(generator); g > 0 {
		factor = min(factor, profileBusyShare*float64(cfg.Validity.MaxGeneratorCPU)/g)
	}
	if len(busy) == 0 {
		factor = 1
	}
	return atProfileLoad(cfg, factor)
}

// atProfileLoad is the config of a profile round at factor times
// load.rate, rounded down to one decimal (so that the report's figure is
// the one applied) and never below 1, with its longer window.
func atProfileLoad(cfg *config.Config, factor float64) (*config.Config, float64) {
	factor = max(1, math.Floor(factor*10)/10)
	c := *cfg
	c.Load.Rate = cfg.Load.Rate * factor
	c.Load.Duration = cfg.Load.Duration * profileWindows
	return &c, factor
}

// nextProfileLoad is the config and load factor of the profile round
// after unit, which ran at factor times the load of gating (the gating
// rounds' config, whose validity limits the profile rounds keep): lower
// (lowerAfterSaturation) when a run's load generator could not keep up,
// with a note that says so, else the same.
func nextProfileLoad(gating *config.Config, factor float64, unit []report.Run) (*config.Config, float64, string) {
	for _, r := range unit {
		if reason := generatorSaturated(gating, r); reason != "" && factor > 1 {
			next, lowered := atProfileLoad(gating, lowerAfterSaturation(factor))
			return next, lowered, fmt.Sprintf("%s at %gx the load; the next at %gx", reason, factor, lowered)
		}
	}
	next, same := atProfileLoad(gating, factor)
	return next, same, ""
}

// lowerAfterSaturation is the load factor of the profile round after one
// whose load generator could not keep up (generatorSaturated): half the
// raise. The gating rounds' CPU use does not tell how a raised load loads
// what else shares the generator's CPUs (a database the service queries,
// on the same machine, made two profile rounds at 3.2 times the load fall
// 51-92 ms behind schedule in a CI run), and a profile round that is
// invalid gives no diagnosis.
func lowerAfterSaturation(factor float64) float64 { return 1 + (factor-1)/2 }

// profileEnv is the service's environment for a profile round: its own,
// with GODEBUG=memprofilerate added after its GODEBUG settings (the last
// setting of a key wins), unless it sets memprofilerate itself.
func profileEnv(env func(l config.Listen) []string) func(l config.Listen) []string {
	return func(l config.Listen) []string {
		out := env(l)
		setting := fmt.Sprintf("memprofilerate=%d", profileMemRate)
		for i, kv := range out {
			if value, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
				if !strings.Contains(value, "memprofilerate=") {
					out[i] = kv + "," + setting
				}
				return out
			}
		}
		return append(out, "GODEBUG="+setting)
	}
}
