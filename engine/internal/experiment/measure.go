package experiment

import (
	"bufio"
	"context"
	"fmt"
	"io"
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

// halfwaySeconds is how many whole seconds the windowed profiles run
// longer per service for the pause between the window's halves (halfway):
// 0.21 s for a duet's two services on the example, 0.27 s with the finer
// heap sampling of a profile round, up to about a second per service when
// its goroutines take long to settle. A profile that ended before the
// window would make the run invalid; the second it runs past the window
// costs a profiled run that second of waiting.
const halfwaySeconds = 1

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
func measure(ctx context.Context, o Options, side string, pair int) (report.Run, error) {
	r := report.Run{Side: side, Pair: pair, Started: time.Now(), Dir: runDir(side, pair)}
	p, err := startProbe(ctx, o, &r)
	if err != nil {
		if r.InvalidReasons == nil {
			return report.Run{}, err
		}
		return r, err
	}
	defer p.inst.Stop()
	gen, err := generator(p.inst, o.Config)
	if err != nil {
		p.abandon(ctx, err)
		return r, err
	}
	defer gen.Close()
	if err := warmUp(ctx, o.Config, gen, []*probe{p}, []int{0}, 0); err != nil {
		p.abandon(ctx, err)
		return r, err
	}
	if err := window(ctx, o.Config, []*probe{p}, []int{0}, func(d time.Duration, out []*os.File) ([]load.Summary, error) {
		s, err := gen.Attack(ctx, load.Attack{Name: "window", Duration: d, Out: out[0]})
		return []load.Summary{s}, err
	}); err != nil {
		p.abandon(ctx, err)
		return r, err
	}
	// Idle keep-alive connections would make a graceful shutdown wait
	// for them.
	gen.Close()
	p.finish(o.GeneratorCPUs)
	return r, nil
}

// runDir is where a run's files go, relative to the results directory.
func runDir(side string, pair int) string { return filepath.Join(side, fmt.Sprintf("run-%02d", pair)) }

// generator is the load generator for inst: perfgate's own, or the one
// its target runs elsewhere.
func generator(inst target.Instance, cfg *config.Config) (load.Attacker, error) {
	if remote, ok := inst.(target.RemoteLoad); ok {
		return remote.Generator(cfg.Load.Rate, cfg.Load.Timeout.Std(), requests(cfg.Load.Requests))
	}
	return dialing(load.New(inst.BaseURL(), cfg.Load.Rate, cfg.Load.Timeout.Std(), requests(cfg.Load.Requests)), inst), nil
}

// dialing makes gen connect to inst through inst's own dial when it is
// reached from another network namespace (target.Dialed).
func dialing(gen *load.Generator, inst target.Instance) *load.Generator {
	if d, ok := inst.(target.Dialed); ok {
		return gen.DialWith(d.Dial)
	}
	return gen
}

// profileClient reaches inst's pprof endpoints, directly or through the
// proxy its target provides, on the service's pprof listener when it has
// one of its own.
func profileClient(inst target.Instance, pprofPath string) *capture.Client {
	if p, ok := inst.(target.Proxied); ok {
		return capture.New(p.ControlURL(), pprofPath, p.ControlClient())
	}
	if l, ok := inst.(target.PprofListener); ok && l.PprofURL() != "" {
		return capture.New(l.PprofURL(), pprofPath, nil)
	}
	if d, ok := inst.(target.Dialed); ok {
		return capture.New(inst.BaseURL(), pprofPath, capture.DirectClient(d.Dial))
	}
	return capture.New(inst.BaseURL(), pprofPath, nil)
}

// warmUp warms the services up at the load rate and starts the windowed
// profiles profileLead before the window (during the warm-up's tail when
// it is long enough, otherwise in an idle pause after it), in order
// (indexes into probes), as window reads them. The profiles run tail
// whole seconds longer than a gating round's, and halfwaySeconds per
// service longer than the window for the pause between its halves.
func warmUp(ctx context.Context, cfg *config.Config, gen load.Attacker, probes []*probe, order []int, tail int) error {
	warmup := cfg.Load.Warmup.Std()
	start := time.Now()
	profilesAt := start.Add(max(0, warmup-profileLead))
	var warm []load.Summary
	var warmErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if warmup > 0 {
			warm, warmErr = attackAll(ctx, gen, load.Attack{Name: "warmup", Duration: warmup, CountFrom: profilesAt, OpenPool: true})
		}
	}()
	profiling := false
	for _, p := range probes {
		profiling = profiling || p.profiling()
	}
	if profiling {
		if err := sleepUntil(ctx, profilesAt); err != nil {
			<-done
			return err
		}
		seconds := int(math.Round(cfg.Load.Duration.Std().Seconds())) + 1 + tail + halfwaySeconds*len(probes)
		for _, p := range inOrder(probes, order) {
			p.startProfiles(ctx, seconds)
		}
	}
	<-done
	for i, p := range probes {
		p.r.Timing.WarmupMs = ms(time.Since(start))
		if p.profiles != nil && i < len(warm) {
			p.r.ProfileRequests = warm[i].RequestsFrom
		}
	}
	if warmErr != nil {
		return warmErr
	}
	if profiling {
		return sleepUntil(ctx, profilesAt.Add(profileLead))
	}
	return nil
}

// attackAll runs one attack and returns a summary per service: a duet's
// generator attacks two.
func attackAll(ctx context.Context, gen load.Attacker, a load.Attack) ([]load.Summary, error) {
	if duet, ok := gen.(load.DuetAttacker); ok {
		return duet.AttackAll(ctx, a)
	}
	s, err := gen.Attack(ctx, a)
	return []load.Summary{s}, err
}

// window measures one window of every probe, sent as two halves
// (halfDurations) with a pause between them, so that the live heap and the
// goroutines can be read halfway: what a process still keeps adding in the
// second half is a leak, what it added only in the first was filling up (a
// cache, a pool). At the window's start it reads the
// retained figures, the MemStats and then the counters of all probes, each
// kind back to back; then each half's attack (with the counters sampled
// every second); in the pause the counters and the MemStats that end the
// first half, the retained figures halfway, and the MemStats and counters
// that start the second; at the window's end the counters, the MemStats
// and the retained figures; and finally the profiles. Every kind is read
// in the order of order (indexes into probes, which stay in the attack's
// order): a duet passes its round's random order, so that no side is
// always read first (a fixed base-first order gave head's intervals a
// later end in every round: a bias the rounds could not average away).
// attack sends one half of d to every probe, writing its results to out.
func window(ctx context.Context, cfg *config.Config, probes []*probe, order []int, attack func(d time.Duration, out []*os.File) ([]load.Summary, error)) error {
	ordered := inOrder(probes, order)
	t := time.Now()
	for _, p := range ordered {
		p.retainedAt(ctx)
	}
	if err := startHalf(ctx, ordered); err != nil {
		return err
	}
	captureMs := ms(time.Since(t))
	planned := cfg.Load.Duration.Std()
	var (
		halves  [2][]load.Summary
		samples [2][][]sample
		sending time.Duration
	)
	for h, d := range halfDurations(planned) {
		if h > 0 {
			t = time.Now()
			if err := halfway(ctx, ordered); err != nil {
				return err
			}
			captureMs += ms(time.Since(t))
		}
		outs, err := createAll(probes, halfResultsFile(h))
		if err != nil {
			return err
		}
		t = time.Now()
		sampler := startSampler(probes)
		summaries, err := attack(d, outs)
		samples[h] = sampler.stop()
		sending += time.Since(t)
		if closeErr := closeAll(outs); err == nil {
			err = closeErr
		}
		// What was sent is kept even when the run is then abandoned (an
		// interrupted attack, counters that could not be read): its
		// summary still says what the service was sent, both halves'
		// when the second failed.
		if len(summaries) == len(probes) {
			for i, p := range probes {
				p.readings.halves[h].load = summaries[i]
				p.readings.load = summaries[i]
				if h > 0 && err != nil {
					if joined, joinErr := joinResults(p.dir, halves[0][i], summaries[i], planned); joinErr == nil {
						p.readings.load = joined
					}
				}
			}
		}
		if err != nil {
			return err
		}
		halves[h] = summaries
	}
	for i, p := range probes {
		var err error
		if p.readings.load, err = joinResults(p.dir, halves[0][i], halves[1][i], planned); err != nil {
			return err
		}
	}
	t = time.Now()
	if err := endHalf(ctx, ordered); err != nil {
		return err
	}
	for i, p := range probes {
		p.r.Seconds = seconds(p.readings.windowSamples(samples[0][i], samples[1][i]), p.readings.load)
	}
	for _, p := range ordered {
		p.collectProfiles(ctx)
	}
	captureMs += ms(time.Since(t))
	for _, p := range probes {
		p.r.Timing.WindowMs = ms(sending)
		p.r.Timing.CaptureMs += captureMs
	}
	return ctx.Err()
}

// halfway reads, in the pause between a window's halves and with no load
// on, what ends the first half (endHalf: its retained figures' forced GCs
// and goroutine dump cost the service CPU and allocations that must land
// in neither half) and what starts the second (startHalf).
func halfway(ctx context.Context, ordered []*probe) error {
	if err := endHalf(ctx, ordered); err != nil {
		return err
	}
	for _, p := range ordered {
		p.half++
	}
	return startHalf(ctx, ordered)
}

// startHalf reads the MemStats and then the counters that start the
// window's current half, each kind for every probe back to back, the
// cheap counters closest to the load.
func startHalf(ctx context.Context, ordered []*probe) error {
	for _, p := range ordered {
		p.memStatsAtStart(ctx)
	}
	for _, p := range ordered {
		if err := p.countersAtStart(); err != nil {
			return err
		}
	}
	return nil
}

// endHalf reads the counters, the MemStats and then the retained figures
// that end the window's current half, each kind for every probe back to
// back: the retained figures' forced GCs after everything the half counts.
func endHalf(ctx context.Context, ordered []*probe) error {
	for _, p := range ordered {
		if err := p.countersAtEnd(); err != nil {
			return err
		}
	}
	for _, p := range ordered {
		p.memStatsAtEnd(ctx)
	}
	for _, p := range ordered {
		p.retainedAt(ctx)
	}
	return nil
}

// halfDurations splits a window's planned sending time into its two
// halves.
func halfDurations(d time.Duration) [2]time.Duration {
	first := d / 2
	return [2]time.Duration{first, d - first}
}

// halfResultsFile is where a window's half h keeps its results until
// joinResults joins them into load.ResultsFile.
func halfResultsFile(h int) string { return fmt.Sprintf("results.half-%d.bin", h+1) }

// joinResults is one service's window summary from its two halves; it
// joins the halves' results files in dir into load.ResultsFile.
func joinResults(dir string, first, second load.Summary, planned time.Duration) (load.Summary, error) {
	var in [2]io.Reader
	for h := range in {
		f, err := os.Open(filepath.Join(dir, halfResultsFile(h)))
		if err != nil {
			return load.Summary{}, err
		}
		defer f.Close()
		in[h] = bufio.NewReader(f)
	}
	out, err := os.Create(filepath.Join(dir, load.ResultsFile))
	if err != nil {
		return load.Summary{}, err
	}
	w := bufio.NewWriter(out)
	joined, err := load.Join([2]load.Summary{first, second}, planned, in, w)
	if err == nil {
		err = w.Flush()
	}
	if closeErr := out.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return load.Summary{}, err
	}
	for h := range in {
		os.Remove(filepath.Join(dir, halfResultsFile(h)))
	}
	return joined, nil
}

// createAll creates the file name in every probe's directory.
func createAll(probes []*probe, name string) ([]*os.File, error) {
	var files []*os.File
	for _, p := range probes {
		f, err := os.Create(filepath.Join(p.dir, name))
		if err != nil {
			_ = closeAll(files) // the create error is the one to report
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// closeAll closes files and returns the first error.
func closeAll(files []*os.File) error {
	var first error
	for _, f := range files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// inOrder is probes in order (indexes into probes).
func inOrder(probes []*probe, order []int) []*probe {
	out := make([]*probe, len(order))
	for i, j := range order {
		out[i] = probes[j]
	}
	return out
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

func requests(rs []configRequest) []load.Request {
	out := make([]load.Request, len(rs))
	for i, r := range rs {
		out[i] = load.Request{Method: r.Method, Path: r.Path, Headers: r.Headers, Body: r.Body}
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
