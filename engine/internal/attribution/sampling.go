package attribution

import (
	"fmt"
	"math"

	"github.com/google/pprof/profile"
)

// rawSamples reads, for one profile, how many raw samples each of its
// samples stands for. The runtime writes scaled estimates (bytes of every
// allocation, not of the sampled ones; every mutex contention, not the
// recorded one in MutexProfileFraction); the sampling noise of a
// function's total is set by the raw samples behind it.
type rawSamples func(p *profile.Profile) (func(s *profile.Sample) float64, error)

// defaultMemProfileRate is the runtime's heap sampling interval when a
// profile does not state its own.
const defaultMemProfileRate = 512 << 10

// counted profiles hold raw counts: CPU samples, goroutines, and block
// events (whose short events are scaled up, but by an amount the profile
// does not record, so their counts are taken as they are).
func counted(countType string) rawSamples {
	return func(p *profile.Profile) (func(*profile.Sample) float64, error) {
		i := index(p, countType)
		if i < 0 {
			return nil, fmt.Errorf("no %s sample type", countType)
		}
		return func(s *profile.Sample) float64 { return float64(s.Value[i]) }, nil
	}
}

// heapSampled profiles sample one allocation per MemProfileRate bytes on
// average (the profile's Period) and write each sample scaled by
// 1/(1−e^(−size/rate)), size being the sample's average object size
// (runtime/pprof's scaleHeapSample). Inverting that scaling gives the raw
// samples: a service sampled at 4 KiB has 128 times the samples it would
// have at the default 512 KiB, and its noise test says so.
func heapSampled(objectsType, spaceType string) rawSamples {
	return func(p *profile.Profile) (func(*profile.Sample) float64, error) {
		oi, si := index(p, objectsType), index(p, spaceType)
		if oi < 0 || si < 0 {
			return nil, fmt.Errorf("no %s/%s sample types", objectsType, spaceType)
		}
		rate := float64(defaultMemProfileRate)
		if p.Period > 0 {
			rate = float64(p.Period)
		}
		return func(s *profile.Sample) float64 {
			objects, space := float64(s.Value[oi]), float64(s.Value[si])
			if objects <= 0 || space <= 0 {
				return 0
			}
			return -objects * math.Expm1(-space/objects/rate)
		}, nil
	}
}

// fractionSampled profiles (mutex) record one contention event in every
// MutexProfileFraction and write it as that many, so every count is a
// multiple of the fraction, which the profile does not state. The
// greatest common divisor of the counts is the fraction, or a multiple of
// it when few events were recorded: that errs towards fewer samples, a
// wider noise band.
func fractionSampled(countType string) rawSamples {
	return func(p *profile.Profile) (func(*profile.Sample) float64, error) {
		i := index(p, countType)
		if i < 0 {
			return nil, fmt.Errorf("no %s sample type", countType)
		}
		var fraction int64
		for _, s := range p.Sample {
			if v := s.Value[i]; v > 0 {
				fraction = gcd(fraction, v)
			}
		}
		return func(s *profile.Sample) float64 {
			if fraction == 0 {
				return 0
			}
			return float64(s.Value[i]) / float64(fraction)
		}, nil
	}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func index(p *profile.Profile, sampleType string) int {
	for i, st := range p.SampleType {
		if st.Type == sampleType {
			return i
		}
	}
	return -1
}
