package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// profileLead is how long before the measured window the windowed profiles
// start; pprof takes whole seconds, so they run for the window plus one
// second and end 1s-profileLead after it. Bracketing the window matters:
// a delta profile's start snapshot and every profile's final encoding cost
// the service megabytes of allocations and milliseconds of CPU, which
// would otherwise land in the window's counters and inflate bytes/req by
// 10-20% (measured on the example service).
const profileLead = 700 * time.Millisecond

// measure runs one fresh process of side: start, warm up, measure one
// window while capturing profiles and counters, stop. The returned run is
// recorded even when err is set (unless its Side is empty).
func measure(ctx context.Context, o Options, side string, pair, order int) (report.Run, error) {
	cfg := o.Config
	r := report.Run{Side: side, Pair: pair, Order: order, Started: time.Now(), Dir: filepath.Join(side, fmt.Sprintf("run-%02d", pair))}
	dir := filepath.Join(o.OutDir, r.Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return report.Run{}, err
	}
	began := time.Now()
	inst, err := o.Target.Start(ctx, target.Spec{
		Binary:       o.Binaries[side],
		Args:         cfg.Args,
		Env:          cfg.Env,
		Ready:        cfg.Service.Ready,
		ReadyTimeout: cfg.Service.ReadyTimeout.Std(),
		LogDir:       dir,
	})
	if err != nil {
		var se *target.StartError
		if !errors.As(err, &se) {
			return report.Run{}, err
		}
		r.Exit = se.Exit
		reason := "did not start: " + se.Reason
		if se.Exit.OOMKilled {
			reason = fmt.Sprintf("OOM-killed during start-up (memory limit %s)", cfg.Resources.Memory)
		}
		r.InvalidReasons = []string{reason}
		return r, &StartFailure{Side: side, Err: err, Exit: se.Exit}
	}
	defer inst.Stop()
	r.Timing.StartToReadyMs = ms(time.Since(began))

	gen, err := generator(inst, cfg)
	if err != nil {
		return abandoned(ctx, r, inst, err), err
	}
	defer gen.Close()
	m := &measurement{o: o, inst: inst, gen: gen, dir: dir, r: &r, client: profileClient(inst, cfg.Service.Pprof)}
	if err := m.warmUpAndStartProfiles(ctx); err != nil {
		return abandoned(ctx, r, inst, err), err
	}
	if err := m.window(ctx); err != nil {
		return abandoned(ctx, r, inst, err), err
	}
	// Idle keep-alive connections would make a graceful shutdown wait
	// for them.
	gen.Close()
	m.client.Close()
	t := time.Now()
	r.Exit = inst.Stop()
	r.Timing.StopMs = ms(time.Since(t))
	r.Figures = figures(m.crashed, r.Load, r.Counters, o.GeneratorCPUs)
	// A service that died after the window (encoding a profile, shutting
	// down) was still not healthy: the run is invalid all the same.
	r.InvalidReasons = invalidReasons(cfg, r, m.crashed || r.Exit.ExitedOnItsOwn)
	r.Valid = len(r.InvalidReasons) == 0
	r.Timing.TotalMs = ms(time.Since(began))
	r.Timing.OverheadMs = r.Timing.TotalMs - r.Timing.WarmupMs - r.Timing.WindowMs
	return r, nil
}

// generator is the load generator for inst: perfgate's own, or the one
// its target runs elsewhere.
func generator(inst target.Instance, cfg *config.Config) (load.Attacker, error) {
	if remote, ok := inst.(target.RemoteLoad); ok {
		return remote.Generator(cfg.Load.Rate, cfg.Load.Timeout.Std(), requests(cfg.Load.Requests))
	}
	return load.New(inst.BaseURL(), cfg.Load.Rate, cfg.Load.Timeout.Std(), requests(cfg.Load.Requests)), nil
}

// profileClient reaches inst's pprof endpoints, directly or through the
// proxy its target provides.
func profileClient(inst target.Instance, pprofPath string) *capture.Client {
	if p, ok := inst.(target.Proxied); ok {
		return capture.New(p.ControlURL(), pprofPath, p.ControlClient())
	}
	return capture.New(inst.BaseURL(), pprofPath, nil)
}

// measurement is the state of one run between start and stop.
type measurement struct {
	o      Options
	inst   target.Instance
	gen    load.Attacker
	client *capture.Client
	dir    string
	r      *report.Run

	profiles *capture.Window // nil without pprof
	crashed  bool            // the process exited during the window
}

// warmUpAndStartProfiles warms the service up at the load rate and starts
// the windowed profiles profileLead before the window (during the warm-up's
// tail when it is long enough, otherwise in an idle pause after it).
func (m *measurement) warmUpAndStartProfiles(ctx context.Context) error {
	cfg := m.o.Config
	if _, err := m.client.MemStats(ctx); err != nil {
		m.r.ProfilesUnavailable = fmt.Sprintf("no pprof at %s (%v): load, CPU and cgroup figures only", cfg.Service.Pprof, err)
	}
	warmup := cfg.Load.Warmup.Std()
	start := time.Now()
	profilesAt := start.Add(max(0, warmup-profileLead))
	var warm load.Summary
	var warmErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if warmup > 0 {
			warm, warmErr = m.gen.Attack(ctx, load.Attack{Name: "warmup", Duration: warmup, CountFrom: profilesAt})
		}
	}()
	if m.r.ProfilesUnavailable == "" {
		if err := sleepUntil(ctx, profilesAt); err != nil {
			<-done
			return err
		}
		seconds := int(math.Round(cfg.Load.Duration.Std().Seconds())) + 1
		m.profiles = m.client.StartWindow(ctx, seconds, m.dir, cfg.Profiles)
	}
	<-done
	m.r.Timing.WarmupMs = ms(time.Since(start))
	if warmErr != nil {
		return warmErr
	}
	if m.profiles != nil {
		m.r.ProfileRequests = warm.RequestsFrom
		return sleepUntil(ctx, profilesAt.Add(profileLead))
	}
	return nil
}

// window measures one window: counters and MemStats at its start, the
// attack, counters and MemStats at its end, then the end-of-window
// snapshots and the windowed profiles.
func (m *measurement) window(ctx context.Context) error {
	cfg, r := m.o.Config, m.r
	t := time.Now()
	var err error
	if m.profiles != nil {
		if ms, err := m.client.MemStats(ctx); err == nil {
			r.Counters.MemStatsStart = &ms
		}
	}
	if r.Counters.Start, err = m.inst.Counters(); err != nil {
		if m.diedWithin(time.Second) {
			// It died in the warm-up (an OOM kill, a crash): the run is
			// invalid with the reason its exit gives, not an error.
			m.crashed = true
			return nil
		}
		return fmt.Errorf("read counters at window start: %w", err)
	}
	r.Timing.CaptureMs += ms(time.Since(t))

	results, err := os.Create(filepath.Join(m.dir, "results.bin"))
	if err != nil {
		return err
	}
	t = time.Now()
	r.Load, err = m.gen.Attack(ctx, load.Attack{Name: "window", Duration: cfg.Load.Duration.Std(), Out: results})
	r.Timing.WindowMs = ms(time.Since(t))
	if closeErr := results.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}

	t = time.Now()
	select {
	case <-m.inst.Exited():
		m.crashed = true
		// A dead process has no counters left to read; the run is
		// invalid, and its exit record says how it ended.
		r.Counters.End = r.Counters.Start
	default:
		if r.Counters.End, err = m.inst.Counters(); err != nil {
			if !m.diedWithin(time.Second) {
				return fmt.Errorf("read counters at window end: %w", err)
			}
			m.crashed = true
			r.Counters.End = r.Counters.Start
			break
		}
		if r.Counters.MemStatsStart != nil {
			if ms, err := m.client.MemStats(ctx); err == nil {
				r.Counters.MemStatsEnd = &ms
			}
		}
	}
	if m.profiles != nil {
		snapshots := m.client.Snapshot(ctx, m.dir, cfg.Profiles)
		r.Profiles = append(m.profiles.Wait(), snapshots...)
		r.ProfileRequests += r.Load.Requests
	}
	r.Timing.CaptureMs += ms(time.Since(t))
	return ctx.Err()
}

// sleepUntil waits for t or for ctx to end.
func sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// diedWithin reports whether the process exits within d: its counters
// vanish a moment before its exit is reaped.
func (m *measurement) diedWithin(d time.Duration) bool {
	select {
	case <-m.inst.Exited():
		return true
	case <-time.After(d):
		return false
	}
}

// abandoned stops the process of a run that could not be completed and
// marks it invalid with the reason.
func abandoned(ctx context.Context, r report.Run, inst target.Instance, err error) report.Run {
	r.Exit = inst.Stop()
	reason := "measurement failed: " + err.Error()
	if ctx.Err() != nil {
		reason = "interrupted before the window ended"
	}
	r.InvalidReasons = append(r.InvalidReasons, reason)
	return r
}

func requests(rs []configRequest) []load.Request {
	out := make([]load.Request, len(rs))
	for i, r := range rs {
		out[i] = load.Request{Method: r.Method, Path: r.Path, Headers: r.Headers, Body: r.Body}
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
