package owner

import (
	"os"
	"os/exec"
	"testing"
)

// A host identity names resources that outlive perfgate: it must not
// change between perfgate versions, or a newer perfgate could not sweep
// what an older one left.
func TestIdentityIsStable(t *testing.T) {
	if got := Identity("0123456789abcdef0123456789abcdef", "pid:[4026531836]"); got != "9710943f3cf2" {
		t.Errorf("Identity = %q", got)
	}
	if Identity("m", "pid:[1]") == Identity("m", "pid:[2]") {
		t.Error("two PID namespaces of one machine share an identity")
	}
}

func TestHostIsThisMachineAndNamespace(t *testing.T) {
	h := Host()
	if !isHost(h) || h != Host() {
		t.Fatalf("Host() = %q", h)
	}
	if Self().PID != os.Getpid() || Self().Host != h {
		t.Errorf("Self() = %+v", Self())
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Owner
		rest string
		ok   bool
	}{
		{"a1b2c3d4e5f6-123-7", Owner{"a1b2c3d4e5f6", 123}, "7", true},
		{"a1b2c3d4e5f6-123", Owner{"a1b2c3d4e5f6", 123}, "", true},
		{"a1b2c3d4e5f6-123-abc-def", Owner{"a1b2c3d4e5f6", 123}, "abc-def", true},
		{"123-7", Owner{}, "", false},              // the old perfgate-<pid>-<seq> form: no host
		{"A1B2C3D4E5F6-123-7", Owner{}, "", false}, // not as written
		{"a1b2c3d4e5f6-0-7", Owner{}, "", false},   // pid 0 is a group
		{"a1b2c3d4e5f6--1-7", Owner{}, "", false},
		{"a1b2c3d4e5f6-+12-7", Owner{}, "", false},
		{"k8s", Owner{}, "", false},
	} {
		o, rest, ok := Cut(tc.in)
		if o != tc.want || rest != tc.rest || ok != tc.ok {
			t.Errorf("Cut(%q) = %+v, %q, %v; want %+v, %q, %v", tc.in, o, rest, ok, tc.want, tc.rest, tc.ok)
		}
	}
	if o, _, ok := Cut(Self().String()); !ok || o != Self() {
		t.Errorf("Cut(Self().String()) = %+v, %v", o, ok)
	}
}

func TestStaleIsOursAndDead(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	j := Local()
	for _, tc := range []struct {
		o    Owner
		want bool
	}{
		{Owner{Host(), dead.Process.Pid}, true},
		{Owner{Host(), os.Getpid()}, false},              // alive
		{Owner{"000000000000", dead.Process.Pid}, false}, // another host's: never touched
		{Owner{"", dead.Process.Pid}, false},
		{Owner{Host(), 0}, false},
		{Owner{Host(), -1}, false},
	} {
		if got := j.Stale(tc.o); got != tc.want {
			t.Errorf("Stale(%+v) = %v, want %v", tc.o, got, tc.want)
		}
	}
}
