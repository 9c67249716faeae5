package target

import (
	"fmt"
	"os"
	"sync"
)

// Warner carries the warnings a target meets after Prepare has returned
// its Environment: a container, cgroup or Deployment it could not remove,
// a cluster it had to create twice. They do not change a result, but the
// user must learn of them from the report, not only from a terminal that
// is gone once CI finishes, so the invocation points them at
// report.Warnings with WarnTo. Targets embed a Warner; the zero value
// writes to stderr until WarnTo is called.
type Warner struct {
	mu   sync.Mutex
	sink func(string)
}

// WarnTo sends every later warning to sink. Calls to sink are serialised
// and come from a goroutine that called the target (Start, Stop, Close;
// a duet may start two instances at once), so sink needs no lock of its
// own.
func (w *Warner) WarnTo(sink func(string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sink = sink
}

// Warn sends one warning, formatted as fmt.Sprintf does.
func (w *Warner) Warn(format string, args ...any) {
	message := fmt.Sprintf(format, args...)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sink == nil {
		fmt.Fprintf(os.Stderr, "perfgate: warning: %s\n", message)
		return
	}
	w.sink(message)
}
