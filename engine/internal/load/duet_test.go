package load

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/load/loadtest"
)

// TestBalancedOrder checks the duet's cycle: every request goes to both
// services back to back, and each service goes first for every request
// type equally often, whichever leads and however many request types.
func TestBalancedOrder(t *testing.T) {
	for _, requests := range []int{1, 2, 3, 4, 7} {
		for _, swap := range []bool{false, true} {
			order := BalancedOrder(requests, swap)
			if len(order) != 4*requests {
				t.Fatalf("%d requests: cycle of %d, want %d", requests, len(order), 4*requests)
			}
			first := map[[2]int]int{} // (service, request) → times first
			for i := 0; i < len(order); i += 2 {
				a, b := order[i], order[i+1]
				if a[1] != b[1] || a[0] == b[0] {
					t.Fatalf("%d requests, swap %v: positions %d,%d are %v,%v, want one request type to both services", requests, swap, i, i+1, a, b)
				}
				first[[2]int{a[0], a[1]}]++
			}
			for r := range requests {
				if first[[2]int{0, r}] != 1 || first[[2]int{1, r}] != 1 {
					t.Errorf("%d requests, swap %v: request %d led by service 0 %d times and by service 1 %d times, want once each",
						requests, swap, r, first[[2]int{0, r}], first[[2]int{1, r}])
				}
			}
			lead := 0
			if swap {
				lead = 1
			}
			if order[0][0] != lead {
				t.Errorf("%d requests, swap %v: cycle led by service %d, want %d", requests, swap, order[0][0], lead)
			}
		}
	}
}

// failing answers /fail with 500 and anything else with 200.
func failing(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/fail" {
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	}
	io.WriteString(w, "ok")
}

// TestDuetAttack drives two real loopback services with one duet attack:
// each gets the configured rate and the same requests, the results are
// told apart per service (errors included), and the order sent follows
// the balanced cycle.
func TestDuetAttack(t *testing.T) {
	a := httptest.NewServer(http.HandlerFunc(failing))
	defer a.Close()
	b := httptest.NewServer(http.HandlerFunc(failing))
	defer b.Close()

	const rate = 100
	gen := NewDuet([2]string{a.URL, b.URL}, rate, time.Second, get("/one", "/two", "/fail"), false)
	defer gen.Close()
	var outA, outB bytes.Buffer
	summaries, err := gen.AttackAll(context.Background(), Attack{Name: "duet", Duration: 2 * time.Second, Outs: []io.Writer{&outA, &outB}})
	if err != nil {
		t.Fatal(err)
	}
	if len(summaries) != 2 {
		t.Fatalf("%d summaries, want 2", len(summaries))
	}
	for i, s := range summaries {
		if !loadtest.AllSent(s.Requests, 2*rate) || s.TargetRate != rate {
			t.Errorf("service %d: %d requests at a target of %g/s, want %d at %d/s", i, s.Requests, s.TargetRate, 2*rate, rate)
		}
		// One request type in three fails, on both sides alike.
		if s.StatusCodes["500"] == 0 || s.StatusCodes["500"] != summaries[0].StatusCodes["500"] {
			t.Errorf("service %d: status codes %v, want the same share of 500s as service 0 (%v)", i, s.StatusCodes, summaries[0].StatusCodes)
		}
		var total uint64
		for _, n := range s.RequestsPerSecond {
			total += n
		}
		if total != s.Requests {
			t.Errorf("service %d: per-second counts add up to %d, want %d", i, total, s.Requests)
		}
	}
	// The order sent, by the attack's sequence numbers: the balanced
	// cycle, repeated.
	sent := map[uint64]string{}
	for name, out := range map[string]*bytes.Buffer{"a": &outA, "b": &outB} {
		base := map[string]string{"a": a.URL, "b": b.URL}[name]
		for _, r := range decode(t, out.Bytes()) {
			path, ok := strings.CutPrefix(r.URL, base)
			if !ok {
				t.Fatalf("results file of %s holds a result for %s", name, r.URL)
			}
			sent[r.Seq] = name + " " + path
		}
	}
	cycle := []string{"a /one", "b /one", "b /two", "a /two", "a /fail", "b /fail", "b /one", "a /one", "a /two", "b /two", "b /fail", "a /fail"}
	if !loadtest.AllSent(len(sent), 4*rate) {
		t.Fatalf("%d results in the two files, want %d", len(sent), 4*rate)
	}
	for seq := range uint64(len(sent)) {
		if want := cycle[seq%uint64(len(cycle))]; sent[seq] != want {
			t.Fatalf("request %d went to %q, want %q (the balanced cycle %v)", seq, sent[seq], want, cycle)
		}
	}
}
