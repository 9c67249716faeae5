package experiment

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// invalidReasons applies the validity rules (docs/report-schema.md, "When a
// run is invalid"): a run that fails any of them is reported with the
// reasons and never compared. serviceFailed says whether the service
// itself failed (serviceFailures), which makes the run evidence against
// its side rather than only a lost measurement.
func invalidReasons(cfg *config.Config, r report.Run, crashed bool) (reasons []string, serviceFailed bool) {
	// A dead service explains every other symptom (no load served, no
	// counters), so its reason stands alone.
	if death := deathReason(cfg, r, crashed); death != "" {
		return []string{death}, true
	}
	failures := serviceFailures(cfg, r)
	return append(failures, measurementFailures(cfg, r)...), len(failures) > 0
}

// deathReason says how the service died (OOM-killed, or crashed), or "".
func deathReason(cfg *config.Config, r report.Run, crashed bool) string {
	switch {
	case r.Exit.OOMKilled:
		return fmt.Sprintf("OOM-killed (memory limit %s)", cfg.Resources.Memory)
	case crashed:
		return "crashed during the run: " + exitText(r)
	}
	return ""
}

// serviceFailures are the rules a living service breaks by itself, the
// same under any load generator and machine: it erred, or it could not
// keep up with the rate.
func serviceFailures(cfg *config.Config, r report.Run) []string {
	var reasons []string
	v := cfg.Validity
	f := r.Figures
	if min := float64(v.MinRate) * cfg.Load.Rate; f.AchievedRate < min {
		// A profile round's raised rate is a product of floats (100 × 4.4
		// is 440.00000000000006): a tenth is as fine as a rate is set.
		target := strconv.FormatFloat(math.Round(cfg.Load.Rate*10)/10, 'f', -1, 64)
		reasons = append(reasons, fmt.Sprintf("achieved rate %.1f/s is below %s of the target %s/s", f.AchievedRate, v.MinRate, target))
	}
	if f.ErrorRate > float64(v.MaxErrors) {
		reasons = append(reasons, fmt.Sprintf("error rate %.2f%% is above the allowed %s (%s)", 100*f.ErrorRate, v.MaxErrors, errorSummary(r.Load)))
	}
	return reasons
}

// measurementFailures are the rules that protect the measurement itself:
// the load generator kept its schedule, the profiles did not overlap the
// window's counters, the CPU profile has enough samples. Breaking them
// says nothing against the service.
func measurementFailures(cfg *config.Config, r report.Run) []string {
	var reasons []string
	v := cfg.Validity
	if reason := generatorSaturated(cfg, r); reason != "" {
		reasons = append(reasons, reason)
	}
	for _, p := range r.Profiles {
		if p.Error == "" && capture.IsWindowed(p.Name) && p.Finished.Before(r.Counters.End.At) {
			reasons = append(reasons, fmt.Sprintf("the %s profile ended before the window's counters were read, so its own work was counted; the service answered too slowly after the window", p.Name))
			break
		}
	}
	if v.MinCPUSamples > 0 {
		for _, p := range r.Profiles {
			if p.Name == "cpu" && p.Error == "" && p.Samples < int64(v.MinCPUSamples) {
				reasons = append(reasons, fmt.Sprintf("too few CPU samples: %d in the profile, %d needed; lengthen load.duration or raise load.rate", p.Samples, v.MinCPUSamples))
			}
		}
	}
	return reasons
}

// generatorSaturated says why r's load generator could not keep up: it
// used more of its CPUs than validity.max_generator_cpu, or sent requests
// too late (maxPacerLag); "" when it kept up.
func generatorSaturated(cfg *config.Config, r report.Run) string {
	if ratio := r.Figures.GeneratorCPURatio; ratio > float64(cfg.Validity.MaxGeneratorCPU) {
		return fmt.Sprintf("load generator saturated: it used %.0f%% of its CPUs (limit %s)", 100*ratio, cfg.Validity.MaxGeneratorCPU)
	}
	if lag := r.Load.PacerLagP99; lag > maxPacerLag {
		return fmt.Sprintf("load generator saturated: requests left up to %v behind schedule (p99)", lag.Round(1e5))
	}
	return ""
}

// maxPacerLag is how late (p99) requests may leave versus the constant
// schedule before the load generator, not the service, shaped the load.
const maxPacerLag = 50 * time.Millisecond

func exitText(r report.Run) string {
	if r.Exit.Signal != "" {
		return "signal " + r.Exit.Signal
	}
	return fmt.Sprintf("exit code %d", r.Exit.Code)
}

func errorSummary(l report.Load) string {
	var parts []string
	for code, n := range l.StatusCodes {
		if code < "200" || code >= "400" {
			parts = append(parts, fmt.Sprintf("status %s ×%d", code, n))
		}
	}
	sort.Strings(parts)
	if len(l.Errors) > 0 {
		e := l.Errors[0]
		if len(e) > 120 {
			e = e[:120] + "…"
		}
		parts = append(parts, "e.g. "+e)
	}
	return strings.Join(parts, ", ")
}
