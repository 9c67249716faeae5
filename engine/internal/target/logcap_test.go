package target

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// numberedLines is n lines "line 000042\n".
func numberedLines(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "line %06d\n", i)
	}
	return b.Bytes()
}

var noticeLine = regexp.MustCompile(`^\[perfgate: the first (\d+) bytes of this log were cut; it keeps the last (\d+) KiB\]\n`)

// checkTail checks that got is all of written when it fits the limit, and
// otherwise the notice followed by a suffix of written of at most limit
// bytes that starts at a line, the notice counting the bytes cut.
func checkTail(t *testing.T, got, written []byte, limit int64) {
	t.Helper()
	if int64(len(written)) <= limit {
		if !bytes.Equal(got, written) {
			t.Errorf("a log within the limit changed: %d bytes kept of %d", len(got), len(written))
		}
		return
	}
	m := noticeLine.FindSubmatch(got)
	if m == nil {
		t.Fatalf("no cut notice at the top: %.100q", got)
	}
	log := got[len(m[0]):]
	if int64(len(log)) > limit {
		t.Errorf("kept %d bytes, more than the limit %d", len(log), limit)
	}
	if int64(len(log)) < limit-64 {
		t.Errorf("kept %d bytes, far less than the limit %d", len(log), limit)
	}
	if !bytes.HasSuffix(written, log) {
		t.Errorf("what was kept is not the end of what was written")
	}
	if !bytes.HasPrefix(log, []byte("line ")) {
		t.Errorf("the kept log starts mid-line: %.40q", log)
	}
	if cut, _ := strconv.Atoi(string(m[1])); cut != len(written)-len(log) {
		t.Errorf("the notice says %d bytes were cut, but %d were", cut, len(written)-len(log))
	}
	if kib, _ := strconv.Atoi(string(m[2])); int64(kib) != limit>>10 {
		t.Errorf("the notice says the last %d KiB are kept, want %d", kib, limit>>10)
	}
}

func TestTailLogKeepsTheTail(t *testing.T) {
	const limit = 64 << 10
	tests := []struct {
		name   string
		lines  int
		writes func(rng *rand.Rand) int // bytes per Write
	}{
		{"small log", 100, func(*rand.Rand) int { return 7 }},
		{"just within the limit", limit / 12, func(*rand.Rand) int { return 12 }},
		{"many small writes", 200_000, func(rng *rand.Rand) int { return 1 + rng.IntN(300) }},
		{"writes larger than the limit", 100_000, func(rng *rand.Rand) int { return limit + rng.IntN(3*limit) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			path := filepath.Join(t.TempDir(), "stderr.log")
			l, err := CreateTailLog(path, limit)
			if err != nil {
				t.Fatal(err)
			}
			written := numberedLines(tt.lines)
			for rest := written; len(rest) > 0; {
				n := min(tt.writes(rng), len(rest))
				if got, err := l.Write(rest[:n]); got != n || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", got, err, n)
				}
				rest = rest[n:]
				// While it runs, the file holds at most about twice the limit.
				if info, err := os.Stat(path); err != nil || info.Size() > 2*limit+200 {
					t.Fatalf("the file grew to %d bytes (%v), more than twice the limit", info.Size(), err)
				}
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkTail(t, got, written, limit)
		})
	}
}

// TestTailLogAsAProcessOutput: given to exec as stdout, the log takes a
// real process's output through a pipe and keeps its end.
func TestTailLogAsAProcessOutput(t *testing.T) {
	const limit = 64 << 10
	path := filepath.Join(t.TempDir(), "stdout.log")
	l, err := CreateTailLog(path, limit)
	if err != nil {
		t.Fatal(err)
	}
	written := numberedLines(300_000) // 3.6 MiB
	cmd := exec.Command("cat")
	cmd.Stdin, cmd.Stdout = bytes.NewReader(written), l
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	checkTail(t, got, written, limit)
}

func TestReadTail(t *testing.T) {
	const limit = 64 << 10
	for _, lines := range []int{0, 10, limit / 12, 500_000} {
		written := numberedLines(lines)
		got, err := ReadTail(bytes.NewReader(written), limit)
		if err != nil {
			t.Fatal(err)
		}
		checkTail(t, got, written, limit)
	}
	// One line longer than the limit: its end is kept.
	long := []byte(strings.Repeat("x", 3*limit) + "\n")
	got, _ := ReadTail(bytes.NewReader(long), limit)
	if m := noticeLine.FindSubmatch(got); m == nil || len(got)-len(m[0]) != limit {
		t.Errorf("a single long line: kept %d bytes, want the notice and %d", len(got), limit)
	}
}

// TestReadTailKeepsWhatArrivedBeforeAnError: a log stream cut off (a
// timeout) still gives the tail read so far.
func TestReadTailKeepsWhatArrivedBeforeAnError(t *testing.T) {
	written := numberedLines(100)
	broken := io.MultiReader(bytes.NewReader(written), iotest.ErrReader(errors.New("stream reset")))
	got, err := ReadTail(broken, 64<<10)
	if err == nil || !bytes.Equal(got, written) {
		t.Errorf("ReadTail = %d bytes, %v; want the %d bytes read and the error", len(got), err, len(written))
	}
}
