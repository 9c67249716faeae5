package load

import (
	"errors"
	"fmt"
	"io"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Join is the summary of one service's window sent as two attacks with a
// pause between them (the experiment reads the live heap halfway, with no
// load on, to see whether it still grows): halves are the attacks' own
// summaries, in order; planned is the window's whole planned sending time;
// results are each attack's results in vegeta's binary encoding. Join
// writes every result of both, in order, to out as one stream (two gob
// streams cannot be read as one: `vegeta report` and the per-endpoint
// figures read the window's results file).
//
// Counts and latency quantiles come from the results, as one attack's
// would; the sending time, the wait, the rates and the generator's figures
// come from the attacks, so that the pause counts as neither sending nor
// waiting. The pacer's p99 lag is the larger of the two: quantiles do not
// add up, and the larger one is the one a validity rule must see.
func Join(halves [2]Summary, planned time.Duration, results [2]io.Reader, out io.Writer) (Summary, error) {
	first, second := halves[0], halves[1]
	var m vegeta.Metrics
	perSecond := []uint64(nil)
	enc := vegeta.NewEncoder(out)
	for _, r := range results {
		err := ReadResults(r, func(res *vegeta.Result) error {
			m.Add(res)
			if err := enc.Encode(res); err != nil {
				return fmt.Errorf("write vegeta results: %w", err)
			}
			if !first.Began.IsZero() {
				if s := int(res.Timestamp.Sub(first.Began) / time.Second); s >= 0 {
					for len(perSecond) <= s {
						perSecond = append(perSecond, 0)
					}
					perSecond[s]++
				}
			}
			return nil
		})
		if err != nil {
			return Summary{}, err
		}
	}
	m.Close()
	if m.Requests != first.Requests+second.Requests {
		return Summary{}, fmt.Errorf("the results file holds %d results, the two attacks sent %d and %d", m.Requests, first.Requests, second.Requests)
	}
	s := summarise(&m, planned)
	s.Duration = first.Duration + second.Duration
	s.Wait = second.Wait
	s.Throughput = 0
	if sending := (s.Duration + s.Wait).Seconds(); sending > 0 {
		s.Throughput = m.Success * float64(m.Requests) / sending
	}
	s.TargetRate = first.TargetRate
	s.RequestsFrom = first.RequestsFrom + second.RequestsFrom
	s.PacerLagP99 = max(first.PacerLagP99, second.PacerLagP99)
	s.PacerLagMax = max(first.PacerLagMax, second.PacerLagMax)
	s.GeneratorCPUNanos = first.GeneratorCPUNanos + second.GeneratorCPUNanos
	s.GeneratorWallNanos = first.GeneratorWallNanos + second.GeneratorWallNanos
	s.Began = first.Began
	s.RequestsPerSecond = perSecond
	return s, nil
}

// ReadResults calls each for every result of r, in vegeta's binary
// encoding, in order; it stops at each's first error.
func ReadResults(r io.Reader, each func(*vegeta.Result) error) error {
	dec := vegeta.NewDecoder(r)
	for {
		var res vegeta.Result
		err := dec.Decode(&res)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read vegeta results: %w", err)
		}
		if err := each(&res); err != nil {
			return err
		}
	}
}
