package netns

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDialReachesWhatOnlyTheNamespaceServes makes a network namespace of
// its own with a listener on its loopback, which this machine's loopback
// does not have, and dials it through Dial: what answers is that listener
// (its random greeting), while a plain dial of the same address from here
// is not. Dialling again afterwards shows the dialling thread came back.
func TestDialReachesWhatOnlyTheNamespaceServes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making and entering a network namespace needs root (CI runs as root)")
	}
	path, addr, greeting := namespaceWithListener(t)
	ns, err := Open(path, "the test's network namespace")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard (issue 58)
	defer cancel()
	for attempt := range 3 {
		conn, err := ns.Dial(ctx, "tcp", addr)
		if err != nil {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
		got, err := io.ReadAll(conn)
		conn.Close()
		if err != nil || string(got) != greeting {
			t.Fatalf("attempt %d: read %q, %v; want the namespace's greeting %q", attempt, got, err, greeting)
		}
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		got, _ := io.ReadAll(conn)
		conn.Close()
		if string(got) == greeting {
			t.Fatalf("a plain dial of %s from this machine's namespace reached the test's namespace", addr)
		}
	}
}

// TestDialRefusesANameAndAClosedNamespace: a host name would be resolved
// (possibly on other threads), so Dial takes literal addresses only; a
// closed namespace is an error, not this machine's namespace.
func TestDialRefusesANameAndAClosedNamespace(t *testing.T) {
	ns, err := Open("/proc/self/ns/net", "this machine's network")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ns.Dial(context.Background(), "tcp", "localhost:80")
	if err == nil || !strings.Contains(err.Error(), "literal IP") {
		t.Fatalf("dial of a host name: %v; want an error that asks for a literal IP", err)
	}
	ns.Close()
	if _, err := ns.Dial(context.Background(), "tcp", "127.0.0.1:9"); err == nil {
		t.Fatal("dial through a closed namespace succeeded")
	}
}

// namespaceWithListener makes a network namespace on a thread kept for
// the test, brings its loopback up and listens there; each connection
// gets greeting and is closed. It returns the namespace's path, the
// listener's address and the greeting.
func namespaceWithListener(t *testing.T) (path, addr, greeting string) {
	t.Helper()
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	greeting = "from the namespace " + hex.EncodeToString(random)
	type made struct {
		path string
		ln   net.Listener
		err  error
	}
	ready, done := make(chan made), make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		// Never unlocked: the thread ends with this goroutine, in the
		// test's namespace, and runs nothing else meanwhile.
		runtime.LockOSThread()
		var m made
		m.err = unix.Unshare(unix.CLONE_NEWNET)
		if m.err == nil {
			m.err = loopbackUp()
		}
		if m.err == nil {
			m.path = fmt.Sprintf("/proc/%d/task/%d/ns/net", os.Getpid(), unix.Gettid())
			m.ln, m.err = net.Listen("tcp", "127.0.0.1:0")
		}
		ready <- m
		<-done // the namespace's path is this thread's: keep it for the test
	}()
	m := <-ready
	if m.err != nil {
		t.Fatalf("make a network namespace with a listener: %v", m.err)
	}
	t.Cleanup(func() { m.ln.Close() })
	go func() {
		for {
			conn, err := m.ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(conn, greeting)
			conn.Close()
		}
	}()
	return m.path, m.ln.Addr().String(), greeting
}

// loopbackUp brings up the loopback interface of the calling thread's
// network namespace (a new one has it down, without 127.0.0.1).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
