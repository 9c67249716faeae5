package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// TestServiceLogsKeepTheirTail: a service writing 8 MiB to each stream
// leaves logs of LogLimit bytes (and the notice) that end with its last
// lines; with the log files created plainly both would hold all 8 MiB.
func TestServiceLogsKeepTheirTail(t *testing.T) {
	tg, _ := prepared(t, cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 128 << 20})
	spec := specFor(t, "spam-logs")
	// 16 MiB of lines before it listens: 9 s under the VM suite's emulated
	// CPU at 1 CPU, where specFor's 10 s made it fail now and then.
	spec.ReadyTimeout = 60 * time.Second
	inst, err := tg.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	exit := inst.Stop()
	if !strings.HasSuffix(exit.StderrTail, "last line of stderr\nlistening on "+strings.TrimPrefix(inst.BaseURL(), "http://")) {
		t.Errorf("StderrTail ends %q, want the service's last lines", exit.StderrTail[max(0, len(exit.StderrTail)-80):])
	}
	for _, name := range []string{"stdout", "stderr"} {
		data, err := os.ReadFile(filepath.Join(spec.LogDir, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		notice, log, _ := strings.Cut(string(data), "\n")
		if !strings.HasPrefix(notice, "[perfgate: the first ") || !strings.HasSuffix(notice, "bytes of this log were cut; it keeps the last 1024 KiB]") {
			t.Errorf("%s.log starts %q, want the cut notice", name, notice)
		}
		if len(log) > target.LogLimit {
			t.Errorf("%s.log keeps %d bytes, more than LogLimit (%d)", name, len(log), target.LogLimit)
		}
		if !strings.Contains(log[max(0, len(log)-100):], "last line of "+name+"\n") || !strings.HasPrefix(log, "line ") {
			t.Errorf("%s.log does not run from a line start to the service's last line: %.80q … %q", name, log, log[max(0, len(log)-40):])
		}
	}
}
