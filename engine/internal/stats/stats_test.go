package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// reference.json holds values from SciPy and from brute-force enumeration
// of all sign assignments (testdata/reference.py regenerates it).
type referenceCase struct {
	Name          string    `json:"name"`
	D             []float64 `json:"d"`
	WPlus         float64   `json:"w_plus"`
	PGreater      float64   `json:"p_greater"`
	PLess         float64   `json:"p_less"`
	SciPyPGreater *float64  `json:"scipy_p_greater"`
	SciPyPLess    *float64  `json:"scipy_p_less"`
	HL01          hlValue   `json:"hl_0.01"`
	HL025         hlValue   `json:"hl_0.025"`
}

type hlValue struct {
	Center, Low, High, Level float64
}

func loadReference(t *testing.T) []referenceCase {
	t.Helper()
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Cases []referenceCase }
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return ref.Cases
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestSignedRankMatchesReference(t *testing.T) {
	for _, c := range loadReference(t) {
		got := SignedRankTest(c.D)
		if !got.Exact || !near(got.WPlus, c.WPlus) || !near(got.PGreater, c.PGreater) || !near(got.PLess, c.PLess) {
			t.Errorf("%s: got W+=%v p>=%v p<=%v, want %v %v %v", c.Name, got.WPlus, got.PGreater, got.PLess, c.WPlus, c.PGreater, c.PLess)
		}
		if c.SciPyPGreater != nil && (!near(got.PGreater, *c.SciPyPGreater) || !near(got.PLess, *c.SciPyPLess)) {
			t.Errorf("%s: p = %v/%v, SciPy says %v/%v", c.Name, got.PGreater, got.PLess, *c.SciPyPGreater, *c.SciPyPLess)
		}
	}
}

func TestHodgesLehmannMatchesReference(t *testing.T) {
	for _, c := range loadReference(t) {
		for _, tc := range []struct {
			alpha float64
			want  hlValue
		}{{0.01, c.HL01}, {0.025, c.HL025}} {
			got := HodgesLehmann(c.D, tc.alpha)
			if !near(got.Center, tc.want.Center) || !near(got.Low, tc.want.Low) || !near(got.High, tc.want.High) || !near(got.Level, tc.want.Level) {
				t.Errorf("%s at alpha %v: got %+v, want %+v", c.Name, tc.alpha, got, tc.want)
			}
		}
	}
}

func TestSignedRankNormalApproximationAgreesWithExact(t *testing.T) {
	// Just past the exact limit the two must agree closely.
	d := make([]float64, exactLimit+1)
	for i := range d {
		d[i] = float64(i%17) - 6.5 + 0.001*float64(i)
	}
	approx := SignedRankTest(d)
	exact := SignedRankTest(d[:exactLimit])
	if approx.Exact || !exact.Exact {
		t.Fatal("the limit is not where it should be")
	}
	if math.Abs(approx.PGreater-exact.PGreater) > 0.05 {
		t.Errorf("approximate p %v far from exact %v on nearly the same data", approx.PGreater, exact.PGreater)
	}
}

func TestAllZeroDifferencesAreNoEvidence(t *testing.T) {
	got := SignedRankTest([]float64{0, 0, 0, 0})
	if got.N != 0 || got.PGreater != 1 || got.PLess != 1 {
		t.Errorf("got %+v", got)
	}
	hl := HodgesLehmann([]float64{0, 0, 0, 0}, 0.01)
	if hl.Center != 0 || hl.Low != 0 || hl.High != 0 {
		t.Errorf("HL of zeros = %+v", hl)
	}
}

func TestHolmMatchesR(t *testing.T) {
	// p.adjust(c(0.01, 0.04, 0.03, 0.005), method = "holm") in R.
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("Holm = %v, want %v", got, want)
			break
		}
	}
	if got := Holm([]float64{0.5, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm caps at 1: %v", got)
	}
}
