package reset

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "marker"), []byte("tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		timeout time.Duration
		// reason and tail are substrings of the failure; "" for success.
		reason, tail string
		log          string // a substring of the log
	}{
		{name: "success runs in the tree with service.env", args: []string{"sh", "-c", `cat marker; echo "url=$DATABASE_URL home=${HOME:+set}"`},
			log: "tree\nurl=postgres://db home=set"},
		{name: "perfgate's environment stays out", args: []string{"sh", "-c", `test -z "$PERFGATE_SECRET" || { echo leaked; exit 1; }`}},
		{name: "exit status", args: []string{"sh", "-c", `echo 'ERROR:  relation "orders" does not exist' >&2; exit 3`},
			reason: "failed after", tail: `relation "orders" does not exist`},
		{name: "timeout kills the group", args: []string{"sh", "-c", `echo waiting; sleep 30 & wait`}, timeout: 300 * time.Millisecond,
			reason: "did not finish within service.reset_timeout (300ms)", tail: "waiting"},
		{name: "missing program", args: []string{"perfgate-no-such-program"}, reason: "could not run perfgate-no-such-program in " + dir},
		{name: "long output keeps its end", args: []string{"sh", "-c", `i=0; while [ $i -lt 500 ]; do echo "line $i"; i=$((i+1)); done; exit 1`},
			reason: "failed", tail: "line 499"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PERFGATE_SECRET", "x")
			c := Command{Args: tc.args, Dir: dir, Env: []string{"DATABASE_URL=postgres://db"}, Timeout: tc.timeout}
			if c.Timeout == 0 {
				c.Timeout = 10 * time.Second
			}
			var log bytes.Buffer
			began := time.Now()
			err := c.Run(context.Background(), &log)
			// The timed-out case's sleep lasts 30 s unless its group is
			// killed: 20 s tells the two apart on a machine slow enough to
			// take seconds over a shell, where 5 s did not (issue 58).
			if time.Since(began) > 20*time.Second {
				t.Errorf("took %v: the timeout did not end the command's group", time.Since(began))
			}
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("err %v; log:\n%s", err, log.String())
				}
			} else {
				var f *Failure
				if !errors.As(err, &f) || !strings.Contains(f.Reason, tc.reason) || !strings.Contains(f.Tail, tc.tail) {
					t.Fatalf("err %#v, want a Failure with reason %q and tail %q", err, tc.reason, tc.tail)
				}
				if len(f.Tail) > tailBytes+8 {
					t.Errorf("tail of %d bytes, want at most about %d", len(f.Tail), tailBytes)
				}
			}
			if !strings.Contains(log.String(), tc.log) {
				t.Errorf("log %q lacks %q", log.String(), tc.log)
			}
		})
	}
}

// TestLogIsCapped: a reset that prints megabytes leaves a log of its first
// and last bytes with a line saying what was cut, not the whole output.
func TestLogIsCapped(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		fails  bool
	}{
		{name: "success", script: `echo first; yes 'a line of filler' | head -c 4000000; echo last`},
		{name: "failure", script: `echo first; yes 'a line of filler' | head -c 4000000; echo last; exit 2`, fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			c := Command{Args: []string{"sh", "-c", tc.script}, Dir: t.TempDir(), Timeout: time.Minute}
			err := c.Run(context.Background(), &log)
			if (err != nil) != tc.fails {
				t.Fatalf("err %v, want failure %v", err, tc.fails)
			}
			got := log.String()
			if limit := logHeadBytes + logTailBytes + 200; len(got) > limit {
				t.Errorf("log of %d bytes, want at most %d", len(got), limit)
			}
			if !strings.HasPrefix(got, "first\n") || !strings.HasSuffix(got, "last\n") {
				t.Errorf("log starts %q and ends %q, want its first and last lines kept", got[:min(len(got), 20)], got[max(0, len(got)-20):])
			}
			if !strings.Contains(got, "bytes of service.reset's output left out here") {
				t.Errorf("log lacks the line saying what was cut")
			}
		})
	}
}

// TestRunAsTheServiceUser: as root, the reset runs as the service's user,
// never as root.
func TestRunAsTheServiceUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dropping to the service's user needs root")
	}
	dir := t.TempDir()
	// t.TempDir's parent is private to root; the tree must be enterable.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	u := privilege.Nobody
	private := Command{Args: []string{"true"}, Dir: t.TempDir(), Timeout: 10 * time.Second, User: &u}
	if err := os.Chmod(private.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := private.Run(context.Background(), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "chmod o+rx") {
		t.Errorf("a tree the user cannot enter: err %v, want the fix named", err)
	}
	var log bytes.Buffer
	c := Command{Args: []string{"sh", "-c", "id -u; id -G"}, Dir: dir, Timeout: 10 * time.Second, User: &u}
	if err := c.Run(context.Background(), &log); err != nil {
		t.Fatal(err)
	}
	if got := log.String(); got != "65534\n65534\n" {
		t.Errorf("ran as %q, want uid 65534 with only its own group", got)
	}
}

// TestStoppingPerfgateIsNotAFailure: a cancelled context ends the reset
// and is reported as the cancellation, not as a failed reset.
func TestStoppingPerfgateIsNotAFailure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c := Command{Args: []string{"sleep", "30"}, Dir: t.TempDir(), Timeout: time.Minute}
	err := c.Run(ctx, &bytes.Buffer{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the context's error", err)
	}
}
