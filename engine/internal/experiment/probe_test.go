package experiment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// deadInstance is a service that has exited while its address still
// accepts connections and never answers: what a reading meets at a dead
// container's address, where nothing refuses the connection.
type deadInstance struct {
	url    string
	exited chan struct{}
}

func (d *deadInstance) BaseURL() string { return d.url }
func (d *deadInstance) Counters() (target.Counters, error) {
	return target.Counters{}, context.Canceled
}
func (d *deadInstance) Exited() <-chan struct{} { return d.exited }
func (d *deadInstance) Stop() target.Exit       { return target.Exit{} }

// TestReadingsOfAnExitedServiceDoNotWait: the readings around a window
// give up as soon as the service has exited, instead of waiting for an
// answer that cannot come (capture's timeout is a minute per reading).
func TestReadingsOfAnExitedServiceDoNotWait(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	inst := &deadInstance{url: hang.URL, exited: make(chan struct{})}
	p := &probe{cfg: &config.Config{}, inst: inst, client: capture.New(hang.URL, "/debug/pprof", nil), r: &report.Run{}}
	// As if the service had been seen alive at start-up and died in the
	// warm-up: the readings start while it is alive and hang there.
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.retainedAt(context.Background())
		p.memStatsAtStart(context.Background())
	}()
	time.Sleep(100 * time.Millisecond)
	close(inst.exited)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the readings still wait for a service that exited 20 s ago")
	}
	if p.readings.retainedAt(0) != nil || p.readings.halves[0].memStatsStart != nil {
		t.Errorf("readings of a dead service were recorded: %+v", p.readings)
	}
}
