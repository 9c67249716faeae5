package experiment

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// duetRound measures one duet round: a fresh base and a fresh head process
// started in a random order (at once on a cluster, startProbes) under
// identical limits on the same CPUs, both
// driven by one attack that sends every request to each in the balanced
// order of load.BalancedOrder, with their counters read back to back at
// the window's edges. Whatever drifts on the machine during the window
// (another tenant, frequency, steal) hits both alike and cancels in the
// round's head/base ratio. The attack comes from perfgate, or from the
// target's generator where it runs the load (duetGenerator). Only a
// profile round captures profiles. The
// returned runs (base, head) are recorded
// even when err is set; a round with an invalid side is invalid as a
// whole.
func duetRound(ctx context.Context, o Options, round int, profileRound bool, rng *rand.Rand) ([]report.Run, error) {
	sides := [2]string{Base, Head}
	first := rng.IntN(2)
	swap := rng.IntN(2) == 1
	runs := make([]report.Run, 2)
	probes := make([]*probe, 2)
	for i, side := range sides {
		runs[i] = report.Run{Side: side, Pair: round, Dir: runDir(side, round), ProfileRound: profileRound,
			Duet: &report.Duet{StartedFirst: i == first, LedOrder: swap == (i == 1)}}
	}
	_, inParallel := o.Target.(target.StartsInParallel)
	defer stopProbes(probes, inParallel)
	order := []int{first, 1 - first}
	if failed, err := startProbes(ctx, o, runs, probes, order, inParallel); err != nil {
		if runs[failed].InvalidReasons == nil {
			return nil, err
		}
		// Only the side that failed is worth keeping: the other was
		// never measured.
		return runs[failed : failed+1], err
	}
	cfg := o.Config
	abandon := func(err error) ([]report.Run, error) {
		eachProbe(probes, inParallel, func(p *probe) { p.abandon(ctx, err) })
		return runs, err
	}
	gen, err := duetGenerator(o, [2]target.Instance{probes[0].inst, probes[1].inst}, swap)
	if err != nil {
		return abandon(err)
	}
	defer gen.Close()
	// Every reading follows the start order: whichever side started first
	// is read first at every edge of this round.
	tail := 0
	if profileRound {
		tail = profileTail
	}
	if err := warmUp(ctx, cfg, gen, probes, order, tail); err != nil {
		return abandon(err)
	}
	if err := window(ctx, cfg, probes, order, func(d time.Duration, out []*os.File) ([]load.Summary, error) {
		return gen.AttackAll(ctx, load.Attack{Name: "window", Duration: d, Outs: []io.Writer{out[0], out[1]}})
	}); err != nil {
		return abandon(err)
	}
	gen.Close()
	if o.measured != nil {
		o.measured()
	}
	// Each finish stops its instance: at once, where they started at once.
	eachProbe(probes, inParallel, func(p *probe) { p.finish(o.GeneratorCPUs) })
	judgeDuet(cfg, runs, sharedCPUs(o, probes[0].inst))
	return runs, nil
}

// startProbes starts the round's two sides in order: one after the
// other, or, on a target whose starts mostly wait on a cluster
// (target.StartsInParallel), both at once, begun in order (startAtOnce).
// It returns the index of the side whose start failed first (-1 for
// none) with its error; the probes that did start are in probes for
// stopProbes.
func startProbes(ctx context.Context, o Options, runs []report.Run, probes []*probe, order []int, inParallel bool) (int, error) {
	if inParallel {
		return startAtOnce(ctx, o, runs, probes, order)
	}
	for _, i := range order {
		runs[i].Started = time.Now()
		var err error
		if probes[i], err = startProbe(ctx, o, &runs[i]); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// startAtOnce starts both sides at once. The first side to fail cancels
// the other's start: the round is lost either way, and that side would
// otherwise wait out its ready timeout (a minute or more on a cluster).
// The failure returned is that first one, not the cancellation it caused.
func startAtOnce(ctx context.Context, o Options, runs []report.Run, probes []*probe, order []int) (int, error) {
	startCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(runs))
	failed := -1
	var failOnce sync.Once
	var wg sync.WaitGroup
	for _, i := range order {
		runs[i].Started = time.Now()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if probes[i], errs[i] = startProbe(startCtx, o, &runs[i]); errs[i] != nil {
				failOnce.Do(func() { failed = i; cancel() })
			}
		}()
	}
	wg.Wait()
	if failed >= 0 {
		return failed, errs[failed]
	}
	return -1, nil
}

// stopProbes stops the sides that started, at once where they started at
// once.
func stopProbes(probes []*probe, inParallel bool) {
	eachProbe(probes, inParallel, func(p *probe) { p.inst.Stop() })
}

// eachProbe calls do for every probe that started: one after the other,
// or all at once where they started at once (a cluster's stops wait on
// it, ~0.5 s a pod).
func eachProbe(probes []*probe, inParallel bool, do func(*probe)) {
	var wg sync.WaitGroup
	for _, p := range probes {
		if p == nil {
			continue
		}
		if !inParallel {
			do(p)
			continue
		}
		wg.Go(func() { do(p) })
	}
	wg.Wait()
}

// duetGenerator is the one generator of a round for both instances:
// perfgate's own (load.NewDuet), or, when the instances' load comes from
// where the target runs them (target.RemoteLoad, an in-cluster
// generator), the target's duet generator there.
func duetGenerator(o Options, inst [2]target.Instance, swap bool) (load.DuetAttacker, error) {
	cfg := o.Config
	reqs := requests(cfg.Load.Requests)
	if remote, ok := o.Target.(target.RemoteDuet); ok && isRemoteLoad(inst[0]) && isRemoteLoad(inst[1]) {
		return remote.DuetGenerator(inst, cfg.Load.Rate, cfg.Load.Timeout.Std(), reqs, swap)
	}
	// Both instances are on one target, reached the same way: the
	// first's dial serves both.
	return dialing(load.NewDuet([2]string{inst[0].BaseURL(), inst[1].BaseURL()}, cfg.Load.Rate, cfg.Load.Timeout.Std(), reqs, swap), inst[0]), nil
}

func isRemoteLoad(inst target.Instance) bool {
	_, ok := inst.(target.RemoteLoad)
	return ok
}

// sharedCPUs is how many CPUs a duet's two sides share: the node's where
// the target runs them on another machine (target.OnNode), else the CPU
// set perfgate gave them (0: every CPU of this machine).
func sharedCPUs(o Options, inst target.Instance) int {
	if n, ok := inst.(target.OnNode); ok && n.NodeCPUs() > 0 {
		return n.NodeCPUs()
	}
	return o.ServiceCPUs
}

// judgeDuet applies the rules of a fair duet to both runs of a round: a
// round is compared only when both sides are valid, they shared the CPUs
// with headroom to spare, and each got the same load.
func judgeDuet(cfg *config.Config, runs []report.Run, serviceCPUs int) {
	base, head := &runs[0], &runs[1]
	shared := base.Figures.CPUCores + head.Figures.CPUCores
	capacity := float64(serviceCPUs)
	if serviceCPUs == 0 {
		capacity = float64(runtime.NumCPU())
	}
	base.Duet.SharedCPUBusy = shared / capacity
	head.Duet.SharedCPUBusy = base.Duet.SharedCPUBusy
	// What makes the round unfair applies to both sides.
	var round []string
	if limit := float64(cfg.Validity.MaxSharedCPU); base.Duet.SharedCPUBusy > limit {
		round = append(round, fmt.Sprintf(
			"the shared CPUs were too busy for a fair duet: base and head together used %.2f of %g cores (%.0f%%, limit %s); lower load.rate or give the service more CPUs (resources.cpu)",
			shared, capacity, 100*base.Duet.SharedCPUBusy, cfg.Validity.MaxSharedCPU))
	}
	if b, h := base.Load.Requests, head.Load.Requests; unbalanced(b, h) {
		round = append(round, fmt.Sprintf("the duet's balance was broken: base was sent %d requests and head %d in the same window", b, h))
	}
	// A side is only compared with its partner of the same round.
	partnerInvalid := map[*report.Run]string{}
	for _, pair := range [][2]*report.Run{{base, head}, {head, base}} {
		if r, other := pair[0], pair[1]; r.Valid && !other.Valid {
			partnerInvalid[r] = fmt.Sprintf("the %s side of this round is invalid: %s", other.Side, other.InvalidReasons[0])
		}
	}
	for _, r := range []*report.Run{base, head} {
		if reason, ok := partnerInvalid[r]; ok {
			r.InvalidReasons = append(r.InvalidReasons, reason)
		}
		r.InvalidReasons = append(r.InvalidReasons, round...)
		r.Valid = len(r.InvalidReasons) == 0
	}
}

// unbalanced reports whether two sides of one attack were sent different
// loads: the balanced order gives each the same requests, so more than a
// cycle's worth of difference means the attack broke off on one side.
func unbalanced(base, head uint64) bool {
	diff := max(base, head) - min(base, head)
	return float64(diff) > max(8, 0.01*float64(max(base, head)))
}
