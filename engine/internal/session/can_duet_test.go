package session

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// insideOnly is a target whose load comes from inside it, one instance at
// a time: the shape of a cluster target without a duet generator.
type insideOnly struct{ *targettest.Fake }

func (insideOnly) LoadsInside() {}

// insideWithDuet is one that can make a generator for two instances
// (the kubernetes and kind targets), with room for them or not.
type insideWithDuet struct {
	insideOnly
	room error
}

func (t insideWithDuet) DuetRoom() error { return t.room }

func (insideWithDuet) DuetGenerator([2]target.Instance, float64, time.Duration, []load.Request, bool) (load.DuetAttacker, error) {
	return nil, nil
}

// TestWhyNoDuet checks which targets keep experiment: duet: those
// perfgate attacks itself, and those whose load comes from inside that
// make a duet's generator and have room for both services; the others
// fall back to sequential pairs, saying why.
func TestWhyNoDuet(t *testing.T) {
	noRoom := errors.New("a duet on the fake target needs two pods of resources.cpu 1")
	for _, c := range []struct {
		name string
		tg   target.Target
		want string // "" to duet, else part of why not
	}{
		{"attacked by perfgate", &targettest.Fake{}, ""},
		{"loads inside, one instance at a time", insideOnly{&targettest.Fake{}}, "the fake target generates its load inside the cluster, one service at a time"},
		{"loads inside, with a duet generator and room", insideWithDuet{insideOnly: insideOnly{&targettest.Fake{}}}, ""},
		{"loads inside, with a duet generator and no room", insideWithDuet{insideOnly{&targettest.Fake{}}, noRoom}, noRoom.Error()},
	} {
		got := whyNoDuet(c.tg)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
