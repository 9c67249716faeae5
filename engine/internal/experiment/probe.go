package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// probe is one service process under measurement, from its start to its
// stop: a sequential run has one, a duet round two. Its readings are split
// by cost so that a duet can read each kind for both sides back to back:
// the retained figures first at the window's start and last at its end,
// MemStats next to the counters, the cheap counter reads closest to the
// window.
type probe struct {
	cfg    *config.Config
	inst   target.Instance
	client *capture.Client
	dir    string
	r      *report.Run
	began  time.Time

	// profile says whether this run captures profiles: every run of a
	// sequential experiment or a recording, only the profile rounds of a
	// duet (profiling both sides biased a duet's CPU comparison).
	profile      bool
	profiles     *capture.Window // nil without pprof
	stopProfiles context.CancelFunc
	crashed      bool // the process exited during the window
	half         int  // the half of the window being measured

	// readings are the window's measurements as their producers return
	// them; record writes them into r.
	readings readings
}

// readings are one run's raw measurements: figures computes from them
// (the GC pause needs MemStats' pause ring, which report.json leaves out),
// and record converts them into the run's report fields. A window is sent
// in two halves (window), each with its own counters and MemStats; the
// retained figures are read at the window's start, halfway and at its end.
type readings struct {
	load     load.Summary // the whole window's
	halves   [2]halfReadings
	retained []*report.Retained
}

// halfReadings are one half of a window: what it sent and the counters and
// MemStats at its edges.
type halfReadings struct {
	load                       load.Summary
	start, end                 target.Counters
	memStatsStart, memStatsEnd *capture.MemStats
}

// retainedAt is the i-th retained reading (0 at the window's start, 1
// halfway, 2 at its end), nil when it was not read.
func (rd readings) retainedAt(i int) *report.Retained {
	if i < len(rd.retained) {
		return rd.retained[i]
	}
	return nil
}

// record writes the readings into r in report.json's types.
func (rd readings) record(r *report.Run) {
	first, second := rd.halves[0], rd.halves[1]
	r.Load = rd.load.Report()
	r.Counters = report.Counters{
		Start:         first.start.Report(),
		End:           second.end.Report(),
		MemStatsStart: memStatsReport(first.memStatsStart),
		MemStatsEnd:   memStatsReport(second.memStatsEnd),
		RetainedStart: rd.retainedAt(0),
		RetainedEnd:   rd.retainedAt(2),
	}
	if !second.start.At.IsZero() {
		r.Counters.Halfway = &report.Halfway{
			FirstHalfRequests: first.load.Requests,
			End:               first.end.Report(),
			Start:             second.start.Report(),
			MemStatsEnd:       memStatsReport(first.memStatsEnd),
			MemStatsStart:     memStatsReport(second.memStatsStart),
			Retained:          rd.retainedAt(1),
		}
	}
}

// memStatsReport is ms in report.json's type; nil when it was not read.
func memStatsReport(ms *capture.MemStats) *report.MemStats {
	if ms == nil {
		return nil
	}
	out := ms.Report()
	return &out
}

// startProbe starts a fresh process of side into r's directory under out.
// A start failure is returned as a *StartFailure with r marked invalid.
func startProbe(ctx context.Context, o Options, r *report.Run) (*probe, error) {
	cfg := o.Config
	dir := filepath.Join(o.OutDir, r.Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	env := cfg.Env
	if o.Duet && r.ProfileRound {
		env = profileEnv(env)
	}
	began := time.Now()
	inst, err := o.Target.Start(ctx, target.Spec{
		Binary:        o.Binaries[r.Side],
		Args:          cfg.Args,
		Env:           env,
		SeparatePprof: cfg.SeparatePprof(),
		SecretEnv:     cfg.EnvFromNames(),
		Ready:         cfg.Service.Ready,
		ReadyTimeout:  cfg.Service.ReadyTimeout.Std(),
		LogDir:        dir,
	})
	if err != nil {
		var se *target.StartError
		if !errors.As(err, &se) {
			return nil, err
		}
		r.Exit = se.Exit.Report()
		reason := "did not start: " + se.Reason
		if se.Exit.OOMKilled {
			reason = fmt.Sprintf("OOM-killed during start-up (memory limit %s)", cfg.Resources.Memory)
		}
		r.InvalidReasons = []string{reason}
		return nil, &StartFailure{Side: r.Side, Err: err, Exit: se.Exit}
	}
	r.Timing.StartToReadyMs = ms(time.Since(began))
	p := &probe{cfg: cfg, inst: inst, dir: dir, r: r, began: began, client: profileClient(inst, cfg.Service.Pprof),
		profile: !o.Duet || r.ProfileRound}
	if _, err := p.client.MemStats(ctx); err != nil {
		where := cfg.Service.Pprof
		if cfg.SeparatePprof() {
			where += " on the service's pprof listener ({pprof_addr})"
		}
		r.ProfilesUnavailable = fmt.Sprintf("no pprof at %s (%v): load, CPU and cgroup figures only", where, err)
	}
	return p, nil
}

// hasPprof reports whether the service answers its pprof endpoints.
func (p *probe) hasPprof() bool { return p.r.ProfilesUnavailable == "" }

// profiling reports whether the run captures profiles.
func (p *probe) profiling() bool { return p.profile && p.hasPprof() && len(p.cfg.Profiles) > 0 }

// whileAlive returns ctx, cancelled as soon as the service exits. A
// reading from a service that died (an OOM kill in the warm-up) must fail
// at once: a dead container's address does not refuse the connection but
// leaves it waiting for the kernel to give up on its neighbour, seconds per
// request (an OOM-killed round on docker spent 18-24 s in readings, against
// 0.1 s alive), and a connection open when it died waits for the reading's
// whole timeout.
func (p *probe) whileAlive(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-p.inst.Exited():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// startProfiles starts the windowed profiles for seconds; collectProfiles
// waits for them.
func (p *probe) startProfiles(ctx context.Context, seconds int) {
	if p.profiling() {
		ctx, p.stopProfiles = p.whileAlive(ctx)
		p.profiles = p.client.StartWindow(ctx, seconds, p.dir, p.cfg.Profiles)
	}
}

// retainedAt reads the retained figures at the window's start, halfway
// and at its end. Their forced GCs and the wait for a steady goroutine
// count (up to a second) must land outside both halves, so a duet reads
// them for both sides before the MemStats and the counters that start a
// half, and after those that end one.
func (p *probe) retainedAt(ctx context.Context) {
	first := len(p.readings.retained) == 0
	if first && p.hasPprof() || !first && !p.crashed && p.readings.retained[0] != nil {
		p.readings.retained = append(p.readings.retained, p.retained(ctx))
		return
	}
	p.readings.retained = append(p.readings.retained, nil)
}

// memStatsAtStart reads MemStats at the window's start; a duet reads both
// sides' back to back, right before the counters.
func (p *probe) memStatsAtStart(ctx context.Context) {
	if p.hasPprof() && !p.crashed {
		p.readings.halves[p.half].memStatsStart = p.memStats(ctx)
	}
}

// retained reads the retained figures while the service lives; nil when
// they cannot be read.
func (p *probe) retained(ctx context.Context) *report.Retained {
	return readWhileAlive(ctx, p, p.client.Retained)
}

// memStats reads MemStats while the service lives; nil when they cannot be
// read.
func (p *probe) memStats(ctx context.Context) *capture.MemStats {
	return readWhileAlive(ctx, p, p.client.MemStats)
}

// readWhileAlive is read's result, given up as soon as p's service exits
// (whileAlive); nil when it failed.
func readWhileAlive[T any](ctx context.Context, p *probe, read func(context.Context) (T, error)) *T {
	ctx, cancel := p.whileAlive(ctx)
	defer cancel()
	if v, err := read(ctx); err == nil {
		return &v
	}
	return nil
}

// countersAtStart reads the counters at the start of the window's current
// half. A process that died before it (an OOM kill in the warm-up, a crash
// in the first half) makes the run invalid, not the experiment an error.
func (p *probe) countersAtStart() error {
	h := &p.readings.halves[p.half]
	if p.crashed {
		h.start = p.readings.halves[0].end
		return nil
	}
	var err error
	if h.start, err = p.inst.Counters(); err != nil {
		if p.gone(err) {
			p.crashed = true
			if p.half > 0 {
				h.start = p.readings.halves[0].end
			}
			return nil
		}
		if p.half > 0 {
			return fmt.Errorf("read counters halfway through the window: %w", err)
		}
		return fmt.Errorf("read counters at window start: %w", err)
	}
	return nil
}

// countersAtEnd reads the counters at the end of the window's current
// half. A dead process has no counters left to read; the run is invalid,
// and its exit record says how it ended.
func (p *probe) countersAtEnd() error {
	h := &p.readings.halves[p.half]
	if p.crashed {
		h.end = h.start
		return nil
	}
	select {
	case <-p.inst.Exited():
		p.crashed = true
		h.end = h.start
		return nil
	default:
	}
	var err error
	if h.end, err = p.inst.Counters(); err != nil {
		if !p.gone(err) {
			if p.half == 0 {
				return fmt.Errorf("read counters halfway through the window: %w", err)
			}
			return fmt.Errorf("read counters at window end: %w", err)
		}
		p.crashed = true
		h.end = h.start
	}
	return nil
}

// memStatsAtEnd reads MemStats at the end of the window's current half,
// right after the counters.
func (p *probe) memStatsAtEnd(ctx context.Context) {
	h := &p.readings.halves[p.half]
	if !p.crashed && h.memStatsStart != nil {
		h.memStatsEnd = p.memStats(ctx)
	}
}

// collectProfiles waits for the windowed profiles and takes the
// end-of-window snapshots.
func (p *probe) collectProfiles(ctx context.Context) {
	if p.profiles == nil {
		return
	}
	ctx, cancel := p.whileAlive(ctx)
	defer cancel()
	var snapshots []report.Profile
	if !p.crashed {
		snapshots = p.client.Snapshot(ctx, p.dir, p.cfg.Profiles)
	}
	p.r.Profiles = append(p.profiles.Wait(), snapshots...)
	p.stopProfiles()
	p.r.ProfileRequests += p.readings.load.Requests
	// An empty mutex profile is either no contention or profiling left
	// off; the service's fraction tells which (hints.ServiceHints).
	for i, prof := range p.r.Profiles {
		if prof.Name == "mutex" && prof.Error == "" && prof.Samples == 0 && !p.crashed {
			if fraction, err := p.client.MutexFraction(ctx); err == nil {
				p.r.Profiles[i].Rate = &fraction
			}
		}
	}
}

// finish stops the process and judges the run: its figures and the
// validity rules of one run.
func (p *probe) finish(generatorCPUs int) {
	r := p.r
	p.client.Close()
	t := time.Now()
	r.Exit = p.inst.Stop().Report()
	r.Timing.StopMs = ms(time.Since(t))
	p.readings.record(r)
	r.Figures = figures(p.crashed, p.readings, generatorCPUs)
	// A service that died after the window (encoding a profile, shutting
	// down) was still not healthy: the run is invalid all the same.
	r.InvalidReasons, r.ServiceFailed = invalidReasons(p.cfg, *r, p.crashed || r.Exit.ExitedOnItsOwn)
	r.Valid = len(r.InvalidReasons) == 0
	r.Timing.TotalMs = ms(time.Since(p.began))
	r.Timing.OverheadMs = r.Timing.TotalMs - r.Timing.WarmupMs - r.Timing.WindowMs
}

// abandon stops the process of a run that could not be completed and
// marks it invalid with the reason.
func (p *probe) abandon(ctx context.Context, err error) {
	if p.stopProfiles != nil {
		p.stopProfiles()
	}
	p.client.Close()
	p.r.Exit = p.inst.Stop().Report()
	p.readings.record(p.r)
	reason := "measurement failed: " + err.Error()
	if ctx.Err() != nil {
		reason = "interrupted before the window ended"
	}
	p.r.InvalidReasons = append(p.r.InvalidReasons, reason)
}

// reapGrace is how long a service whose counters could not be read has
// to be seen exiting before the failed read counts as a measurement
// failure rather than a crash: a dying process's counters vanish a
// moment (milliseconds) before its exit is reaped. A variable so that the
// loop's tests need not wait for it.
var reapGrace = time.Second

// gone says whether a failed counter read means the service died: its
// process no longer exists (no /proc entry: it was reaped, which a
// container runtime does at once, while docker may take seconds on a busy
// machine to report the container's exit, an OOM kill's included), or it
// exits within reapGrace.
func (p *probe) gone(readErr error) bool {
	return errors.Is(readErr, fs.ErrNotExist) || p.diedWithin(reapGrace)
}

// diedWithin reports whether the process exits within d: its counters
// vanish a moment before its exit is reaped.
func (p *probe) diedWithin(d time.Duration) bool {
	select {
	case <-p.inst.Exited():
		return true
	case <-time.After(d):
		return false
	}
}

// cpuNanos is the service's cumulative CPU time in c: the cgroup's when
// confined (exact), the process's otherwise.
func cpuNanos(c target.Counters) int64 {
	if c.Cgroup != nil {
		return c.Cgroup.CPUUsageNanos
	}
	return c.ProcessCPUNano
}
