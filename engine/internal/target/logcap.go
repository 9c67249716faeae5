package target

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// LogLimit is how much of each service log a run keeps: the last 1 MiB of
// stdout.log and of stderr.log. The service is the pull request's code; one
// that logs without end must not fill the runner's disk, and the end of a
// log is the part that explains a failure.
const LogLimit = 1 << 20

// TailLog is a log file that keeps only the last limit bytes written to
// it. It lets the file grow to twice the limit, then rewrites it as a
// notice of how much was cut followed by the last limit bytes (from a line
// start when there is one), so the disk holds at most about twice the
// limit while the service runs and the limit once closed. Write never
// fails, so a service is never blocked or sent SIGPIPE by its own logging;
// the first error is returned by Close.
type TailLog struct {
	mu    sync.Mutex
	f     *os.File
	limit int64
	size  int64 // bytes of log in the file, after the notice
	cut   int64 // bytes dropped from the head so far
	err   error
}

// CreateTailLog creates (or truncates) the log file at path.
func CreateTailLog(path string, limit int64) (*TailLog, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("log %s: limit %d must be more than 0", path, limit)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &TailLog{f: f, limit: limit}, nil
}

// Name is the file's path.
func (l *TailLog) Name() string { return l.f.Name() }

// Write appends p, trimming the file when it passes twice the limit.
func (l *TailLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	if l.err != nil {
		return n, nil
	}
	if int64(len(p)) > l.limit {
		// Everything in the file and the head of p are older than the
		// limit's worth of bytes to keep.
		drop := int64(len(p)) - l.limit
		l.cut += l.size + drop
		l.size = 0
		p = p[drop:]
		l.err = l.rewrite(nil)
	}
	if l.err == nil {
		_, l.err = l.f.Write(p)
		l.size += int64(len(p))
	}
	if l.err == nil && l.size > 2*l.limit {
		l.err = l.trim()
	}
	return n, nil
}

// Close trims the file to the limit and closes it.
func (l *TailLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil && l.size > l.limit {
		l.err = l.trim()
	}
	if err := l.f.Close(); l.err == nil {
		l.err = err
	}
	if l.err != nil {
		return fmt.Errorf("log %s: %w", l.f.Name(), l.err)
	}
	return nil
}

// trim keeps the last limit bytes of the log.
func (l *TailLog) trim() error {
	end, err := l.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	keep := make([]byte, l.limit)
	if _, err := l.f.ReadAt(keep, end-l.limit); err != nil {
		return err
	}
	keep = fromLineStart(keep)
	l.cut += l.size - int64(len(keep))
	l.size = int64(len(keep))
	return l.rewrite(keep)
}

// rewrite replaces the file's content with the cut notice and log.
func (l *TailLog) rewrite(log []byte) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := l.f.Write(append([]byte(cutNotice(l.cut, l.limit)), log...))
	return err
}

// ReadTail reads r to its end and returns its last limit bytes, led by a
// cut notice when there was more, holding at most about twice the limit in
// memory: for logs fetched from elsewhere (a cluster's API). On a read
// error it returns the tail read so far with the error.
func ReadTail(r io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	var cut int64
	chunk := make([]byte, 64<<10)
	var err error
	for err == nil {
		var n int
		n, err = r.Read(chunk)
		buf.Write(chunk[:n])
		if int64(buf.Len()) > 2*limit {
			drop := int64(buf.Len()) - limit
			cut += drop
			tail := bytes.Clone(buf.Bytes()[drop:])
			buf.Reset()
			buf.Write(tail)
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	log := buf.Bytes()
	if int64(len(log)) > limit {
		cut += int64(len(log)) - limit
		log = log[int64(len(log))-limit:]
	}
	if cut == 0 {
		return log, err
	}
	tail := fromLineStart(log)
	cut += int64(len(log) - len(tail))
	return append([]byte(cutNotice(cut, limit)), tail...), err
}

// fromLineStart drops a partial first line, unless the text is one line.
func fromLineStart(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
		return b[i+1:]
	}
	return b
}

// cutNotice is the first line of a log whose head was cut.
func cutNotice(cut, limit int64) string {
	return fmt.Sprintf("[perfgate: the first %d bytes of this log were cut; it keeps the last %d KiB]\n", cut, limit>>10)
}
