package capture

import "testing"

// A goroutine profile of a real service (debug=1, abridged): the pprof
// request itself and two idle keep-alive connections are served by
// conn.serve; a leaked watcher, the listener and a client pool's loops
// are not.
const goroutineProfile = `goroutine profile: total 7
1 @ 0x448cb1 0x4888fd 0x68a3b1 0x64bf90 0x4911c1
#	0x68a3b0	runtime/pprof.writeRuntimeProfile+0xb0	/usr/local/go/src/runtime/pprof/pprof.go:851
#	0x64bf8f	net/http.(*conn).serve+0x68f		/usr/local/go/src/net/http/server.go:2067

2 @ 0x489ace 0x44c197 0x64bf90 0x4911c1
#	0x488ca4	internal/poll.runtime_pollWait+0x84		/usr/local/go/src/runtime/netpoll.go:351
#	0x64a1b2	net/http.(*conn).readRequest+0x162	/usr/local/go/src/net/http/server.go:1010
#	0x64bf8f	net/http.(*conn).serve+0x68f		/usr/local/go/src/net/http/server.go:2067

2 @ 0x489ace 0x466d65 0x4911c1
#	0x7a0c11	example.com/svc/internal/httpapi.(*Server).watchStock+0x91	/src/internal/httpapi/order.go:99

1 @ 0x489ace 0x44c197 0x488ca5 0x4911c1
#	0x650d0b	net/http.(*Server).Serve+0x30b			/usr/local/go/src/net/http/server.go:3434

1 @ 0x489ace 0x466d65 0x666d66 0x4911c1
#	0x666d65	net/http.(*persistConn).writeLoop+0xe5	/usr/local/go/src/net/http/transport.go:2652
`

func TestParseGoroutines(t *testing.T) {
	total, serving, err := parseGoroutines([]byte(goroutineProfile))
	if err != nil {
		t.Fatal(err)
	}
	if total != 7 || serving != 3 {
		t.Errorf("total %d, serving connections %d; want 7 and 3", total, serving)
	}
}

func TestParseGoroutinesRejectsOtherText(t *testing.T) {
	if _, _, err := parseGoroutines([]byte("<html>not a profile</html>")); err == nil {
		t.Error("a page that is not a goroutine profile parsed without error")
	}
}
