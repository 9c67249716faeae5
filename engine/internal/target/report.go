package target

import "github.com/perfgate/perfgate/engine/internal/report"

// The target's values as report.json records them: environment beside the
// host's, a run's counters and its exit.

// Report is the environment as report.json's environment records it.
func (e Environment) Report() report.TargetEnvironment {
	return report.TargetEnvironment{
		Target:           e.Target,
		Confinement:      e.Confinement,
		CgroupVersion:    e.CgroupVersion,
		Limits:           report.CgroupLimits(e.Limits),
		ServiceCPUs:      e.ServiceCPUs,
		GeneratorCPUs:    e.GeneratorCPUs,
		GOMAXPROCS:       e.GOMAXPROCS,
		GOMAXPROCSSource: e.GOMAXPROCSSource,
		Warnings:         e.Warnings,
	}
}

// Report is the counters as a run's counters.start and counters.end
// record them.
func (c Counters) Report() report.CountersAt {
	r := report.CountersAt{At: c.At, ProcessCPUNano: c.ProcessCPUNano, MaxRSSBytes: c.MaxRSSBytes}
	if c.Cgroup != nil {
		stats := report.CgroupStats(*c.Cgroup)
		r.Cgroup = &stats
	}
	return r
}

// Report is the exit as a run's exit records it.
func (e Exit) Report() report.Exit { return report.Exit(e) }
