// Package capture fetches pprof profiles and runtime counters from a
// running service over its net/http/pprof endpoints.
package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// maxProfileBytes bounds what perfgate reads from a service.
const maxProfileBytes = 256 << 20

// Client talks to one service's pprof endpoints, e.g.
// http://127.0.0.1:41234/debug/pprof.
type Client struct {
	prefix string
	http   *http.Client
}

// New returns a client for the pprof prefix of a service. client carries
// the credentials of a proxied service (nil for a direct one); it must
// have no timeout: windowed profiles take as long as the window, and
// callers bound requests with their context.
func New(baseURL, pprofPath string, client *http.Client) *Client {
	if client == nil {
		client = DirectClient(nil)
	}
	return &Client{prefix: baseURL + pprofPath, http: client}
}

// DirectClient is the client for a service reached directly, as the load
// reaches it (on loopback, a container's bridge address or a pod's IP):
// never through a proxy (HTTP_PROXY). dial, when not nil, makes its
// connections (a pod reached through its node's network namespace).
func DirectClient(dial func(ctx context.Context, network, address string) (net.Conn, error)) *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: dial}}
}

// Close releases the client's idle connections to the service.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// MemStats fetches the runtime's counters from the debug=1 heap profile.
func (c *Client) MemStats(ctx context.Context) (MemStats, error) {
	body, err := c.get(ctx, "/heap?debug=1", answerTimeout)
	if err != nil {
		return MemStats{}, err
	}
	return parseMemStats(bytes.NewReader(body))
}

// Window is a set of profiles being recorded over the measured window.
type Window struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	results []report.Profile
}

// windowed are the profiles that cover a time window (?seconds=N): the CPU
// profile, and delta profiles for the cumulative ones.
var windowed = map[string]string{"cpu": "/profile", "allocs": "/allocs", "mutex": "/mutex", "block": "/block"}

// IsWindowed says whether a profile covers the measured window
// (?seconds=N), so it must finish before the window's end counters are
// read, or its own work is counted.
func IsWindowed(profile string) bool {
	_, ok := windowed[profile]
	return ok
}

// StartWindow starts every requested windowed profile for seconds and
// returns at once; Wait collects them into dir as <name>.pb.gz.
func (c *Client) StartWindow(ctx context.Context, seconds int, dir string, profiles []string) *Window {
	w := &Window{}
	for _, name := range profiles {
		endpoint, ok := windowed[name]
		if !ok {
			continue
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.add(c.fetchTo(ctx, name, fmt.Sprintf("%s?seconds=%d", endpoint, seconds), dir, time.Duration(seconds)*time.Second+answerTimeout))
		}()
	}
	return w
}

// Wait returns the window's profiles once all have arrived.
func (w *Window) Wait() []report.Profile {
	w.wg.Wait()
	return w.results
}

func (w *Window) add(r report.Profile) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.results = append(w.results, r)
}

// Snapshot fetches the instantaneous profiles (heap, goroutine) among the
// requested ones, taken at the end of the window.
func (c *Client) Snapshot(ctx context.Context, dir string, profiles []string) []report.Profile {
	var results []report.Profile
	for _, name := range profiles {
		if name == "heap" || name == "goroutine" {
			results = append(results, c.fetchTo(ctx, name, "/"+name, dir, answerTimeout))
		}
	}
	return results
}

// fetchTo downloads one profile, checks it parses, and writes it.
func (c *Client) fetchTo(ctx context.Context, name, path, dir string, timeout time.Duration) report.Profile {
	r := report.Profile{Name: name}
	body, err := c.get(ctx, path, timeout)
	r.Finished = time.Now()
	if err == nil {
		var p *profile.Profile
		if p, err = parseProfile(body); err == nil {
			r.Samples = countSamples(p)
			r.File = name + ".pb.gz"
			err = os.WriteFile(filepath.Join(dir, r.File), body, 0o644)
		} else {
			err = fmt.Errorf("not a pprof profile: %w", err)
		}
	}
	if err != nil {
		r.File, r.Error = "", err.Error()
	}
	return r
}

// ReadProfile parses a profile file written by perfgate (or any pprof
// protobuf, gzipped or not), within the limits a fetched profile has.
func ReadProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxProfileBytes {
		return nil, fmt.Errorf("parse %s: larger than %d MiB, the most perfgate reads of a profile", path, maxProfileBytes>>20)
	}
	p, err := parseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return p, nil
}

func countSamples(p *profile.Profile) int64 {
	var n int64
	for _, s := range p.Sample {
		if len(s.Value) > 0 {
			n += s.Value[0]
		}
	}
	return n
}

// answerTimeout bounds how long a service may take to answer beyond the
// profile's own duration: one stuck at its memory limit (reclaiming
// without being killed) would otherwise hold the run forever.
const answerTimeout = time.Minute

// get fetches path, giving up after timeout.
func (c *Client) get(ctx context.Context, path string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.prefix+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if len(body) > maxProfileBytes {
		return nil, fmt.Errorf("GET %s: the answer is larger than %d MiB, the most perfgate reads from a service", path, maxProfileBytes>>20)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, firstLine(body))
	}
	return body, nil
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}
