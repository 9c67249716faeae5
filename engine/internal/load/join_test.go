package load

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestJoinSummarisesTwoHalvesAsOneWindow: two real attacks with a pause
// between them join into one summary and one results stream, and the pause
// counts as neither sending nor waiting.
func TestJoinSummarisesTwoHalvesAsOneWindow(t *testing.T) {
	srv := service(t)
	g := New(srv.URL, 200, 5*time.Second, get("/a", "/fail"))
	defer g.Close()
	var halves [2]Summary
	var outs [2]bytes.Buffer
	for h := range halves {
		if h > 0 {
			time.Sleep(700 * time.Millisecond)
		}
		s, err := g.Attack(context.Background(), Attack{Name: "window", Duration: 500 * time.Millisecond, Out: &outs[h]})
		if err != nil {
			t.Fatal(err)
		}
		halves[h] = s
	}
	var joined bytes.Buffer
	s, err := Join(halves, time.Second, [2]io.Reader{bytes.NewReader(outs[0].Bytes()), bytes.NewReader(outs[1].Bytes())}, &joined)
	if err != nil {
		t.Fatal(err)
	}

	results := decode(t, joined.Bytes())
	if want := halves[0].Requests + halves[1].Requests; s.Requests != want || uint64(len(results)) != want {
		t.Errorf("Requests = %d with %d results in the joined stream, want the halves' %d", s.Requests, len(results), want)
	}
	if !within(s.AchievedRate, 200, 200*0.03) {
		t.Errorf("AchievedRate = %.1f/s, want the 200/s each half sent, the pause not counted", s.AchievedRate)
	}
	if !within(s.Throughput, 100, 100*0.1) {
		t.Errorf("Throughput = %.1f/s, want about 100/s (half the requests fail), the pause not counted", s.Throughput)
	}
	if s.Duration != halves[0].Duration+halves[1].Duration || s.Wait != halves[1].Wait {
		t.Errorf("Duration %v, Wait %v; want the halves' sending time %v and the second's wait %v",
			s.Duration, s.Wait, halves[0].Duration+halves[1].Duration, halves[1].Wait)
	}
	if s.StatusCodes["500"] == 0 || s.StatusCodes["200"] == 0 || !within(s.ErrorRate, 0.5, 0.02) {
		t.Errorf("status codes %v, error rate %.2f; want both halves' 200s and 500s", s.StatusCodes, s.ErrorRate)
	}
	if s.Latency.P50 <= 0 || s.Latency.Max < s.Latency.P99 {
		t.Errorf("latency %+v; want quantiles over every result", s.Latency)
	}
	if s.GeneratorWallNanos != halves[0].GeneratorWallNanos+halves[1].GeneratorWallNanos {
		t.Errorf("generator wall %d, want the halves' sum", s.GeneratorWallNanos)
	}
	var perSecond uint64
	for _, n := range s.RequestsPerSecond {
		perSecond += n
	}
	// 0.5 s, a 0.7 s pause, 0.5 s: the requests fall in seconds 0 and 1.
	if perSecond != s.Requests || len(s.RequestsPerSecond) != 2 || !s.Began.Equal(halves[0].Began) {
		t.Errorf("requests per second %v from %v; want all %d, in the two seconds from the first half's start", s.RequestsPerSecond, s.Began, s.Requests)
	}
}

// TestJoinRefusesResultsThatAreNotTheHalves': a results file that lost
// results must not be summarised as if it held the window.
func TestJoinRefusesResultsThatAreNotTheHalves(t *testing.T) {
	srv := service(t)
	g := New(srv.URL, 100, 5*time.Second, get("/a"))
	defer g.Close()
	var out bytes.Buffer
	s, err := g.Attack(context.Background(), Attack{Name: "window", Duration: 200 * time.Millisecond, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Join([2]Summary{s, s}, 400*time.Millisecond, [2]io.Reader{bytes.NewReader(out.Bytes()), strings.NewReader("")}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "results") {
		t.Fatalf("err %v, want the mismatch between the results and the halves named", err)
	}
}
