package target

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitCPUs(t *testing.T) {
	for _, tc := range []struct {
		allowed            []int
		cores              float64
		service, generator []int
	}{
		{[]int{0, 1}, 1, []int{1}, []int{0}},
		{[]int{0, 1}, 0.25, []int{1}, []int{0}},
		// The generator always keeps a CPU, even when the limit asks for all.
		{[]int{0, 1}, 2, []int{1}, []int{0}},
		{[]int{0, 1, 2, 3}, 1.5, []int{2, 3}, []int{0, 1}},
		{[]int{3, 5, 7}, 1, []int{7}, []int{3, 5}},
		// One CPU: nothing to pin apart.
		{[]int{0}, 1, nil, nil},
	} {
		service, generator := SplitCPUs(tc.allowed, tc.cores)
		if !slices.Equal(service, tc.service) || !slices.Equal(generator, tc.generator) {
			t.Errorf("SplitCPUs(%v, %g) = %v, %v; want %v, %v", tc.allowed, tc.cores, service, generator, tc.service, tc.generator)
		}
	}
}

func TestChooseGOMAXPROCS(t *testing.T) {
	for _, tc := range []struct {
		millicores    int64
		env           string
		n             int
		source, warns string
	}{
		{1000, "", 1, "set from the CPU limit", ""},
		{250, "", 1, "set from the CPU limit", ""},
		{1500, "", 2, "set from the CPU limit", ""},
		{2000, "2", 2, "set by service.env", ""},
		{100, "2", 2, "set by service.env", "GOMAXPROCS=2 (from service.env) is above the CPU limit of 0.1 cores"},
	} {
		n, source, warning, err := ChooseGOMAXPROCS(tc.millicores, tc.env)
		if err != nil || n != tc.n || source != tc.source || !strings.HasPrefix(warning, tc.warns) || (tc.warns == "") != (warning == "") {
			t.Errorf("ChooseGOMAXPROCS(%d, %q) = %d, %q, %q, %v", tc.millicores, tc.env, n, source, warning, err)
		}
	}
	if _, _, _, err := ChooseGOMAXPROCS(1000, "many"); err == nil || !strings.Contains(err.Error(), `GOMAXPROCS="many" is not a positive integer`) {
		t.Errorf("a bad service.env GOMAXPROCS gave %v", err)
	}
}
