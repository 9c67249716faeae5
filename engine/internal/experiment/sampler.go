package experiment

import (
	"time"

	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// sample is one reading of a service's cumulative CPU time.
type sample struct {
	at  time.Time
	cpu int64
}

// sampler reads every probe's CPU counter once a second during a window,
// all probes back to back, so a duet's two sides can be drawn per second
// (report.html): the picture of how much of the machine's drift the two
// sides share.
type sampler struct {
	probes  []*probe
	samples [][]sample
	done    chan struct{}
	stopped chan struct{}
}

func startSampler(probes []*probe) *sampler {
	s := &sampler{probes: probes, samples: make([][]sample, len(probes)), done: make(chan struct{}), stopped: make(chan struct{})}
	go s.run()
	return s
}

func (s *sampler) run() {
	defer close(s.stopped)
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	s.read()
	for {
		select {
		case <-s.done:
			return
		case <-ticker.C:
			s.read()
		}
	}
}

func (s *sampler) read() {
	for i, p := range s.probes {
		if c, err := p.inst.Counters(); err == nil {
			s.samples[i] = append(s.samples[i], sample{at: c.At, cpu: cpuNanos(c)})
		}
	}
}

// stop ends the sampling and returns each probe's samples.
func (s *sampler) stop() [][]sample {
	close(s.done)
	<-s.stopped
	return s.samples
}

// seconds pairs each CPU sample with the requests sent to the service
// before it (the attack counts them per second since it began).
func seconds(samples []sample, l load.Summary) []report.Second {
	if l.Began.IsZero() {
		return nil
	}
	out := make([]report.Second, 0, len(samples))
	for _, s := range samples {
		offset := s.at.Sub(l.Began)
		// Samples fall within milliseconds of whole seconds after the
		// attack began; count the seconds whose requests precede them.
		whole := int((offset + time.Second/2) / time.Second)
		var requests uint64
		for i := 0; i < whole && i < len(l.RequestsPerSecond); i++ {
			requests += l.RequestsPerSecond[i]
		}
		out = append(out, report.Second{OffsetMs: ms(offset), CPUNanos: s.cpu, Requests: requests})
	}
	return out
}

// windowSamples are a window's CPU samples from both halves' samplers,
// with the CPU the service spent in the pause between them (the halfway
// readings' forced GCs) taken out of the second half's, so that no
// interval of the per-second chart counts it.
func (rd readings) windowSamples(first, second []sample) []sample {
	paused := cpuNanos(rd.halves[1].start) - cpuNanos(rd.halves[0].end)
	out := append([]sample(nil), first...)
	for _, s := range second {
		out = append(out, sample{at: s.at, cpu: s.cpu - paused})
	}
	return out
}
