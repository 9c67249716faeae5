// Package netns dials TCP connections from inside another network
// namespace (a kind node's), so that perfgate can drive pods whose IPs
// only that namespace routes to, without a route on the host.
//
// A socket belongs to the namespace of the thread that created it, for
// its whole life. Dial therefore locks its goroutine to its thread, moves
// the thread into the namespace, creates and connects the socket there,
// and moves the thread back: the connection then works from any thread,
// like any other. The Go runtime creates the socket on the dialling
// thread as long as the address is a literal IP (no resolver, no parallel
// dials of several addresses), which Dial requires.
package netns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Namespace is a network namespace to dial from, held open by a file
// descriptor so that it stays the same namespace for the run even if the
// process whose namespace it was exits.
type Namespace struct {
	file *os.File
	what string // for errors: "kind node perfgate-123-ab's network"
}

// Open opens the network namespace at path (/proc/PID/ns/net); what names
// it in errors.
func Open(path, what string) (*Namespace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s (%s): %w", path, what, err)
	}
	return &Namespace{file: f, what: what}, nil
}

// Close releases the namespace's descriptor; Dial fails afterwards.
func (n *Namespace) Close() error { return n.file.Close() }

// Dial connects to address (a literal IP and a port) from inside the
// namespace. Its signature is http.Transport's DialContext.
func (n *Namespace) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if _, err := netip.ParseAddrPort(address); err != nil {
		return nil, fmt.Errorf("dial %s in %s: the address must be a literal IP and port, so that the socket is made on this thread: %w", address, n.what, err)
	}
	runtime.LockOSThread()
	home, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("dial %s in %s: read this thread's own network namespace: %w", address, n.what, err)
	}
	defer home.Close()
	if err := unix.Setns(int(n.file.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		if errors.Is(err, unix.EPERM) {
			err = fmt.Errorf("%w (entering another network namespace needs root)", err)
		}
		return nil, fmt.Errorf("dial %s: enter %s: %w", address, n.what, err)
	}
	var d net.Dialer
	conn, dialErr := d.DialContext(ctx, network, address)
	if err := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread stays locked to this goroutine, and the runtime
		// ends it when the goroutine exits: no other goroutine ever
		// runs on it in the wrong namespace.
		if conn != nil {
			conn.Close()
		}
		return nil, fmt.Errorf("dial %s in %s: return to this machine's network namespace: %w", address, n.what, err)
	}
	runtime.UnlockOSThread()
	return conn, dialErr
}
