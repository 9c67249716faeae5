package kubernetes

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
)

// TestCountersFromCAdvisor reads a real scrape of the local cluster's
// kubelet (testdata/cadvisor.txt: a pod "cadv" with a 100m/32Mi container
// "service", next to its pod-level and sandbox series).
func TestCountersFromCAdvisor(t *testing.T) {
	f, err := os.Open("testdata/cadvisor.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var parser expfmt.TextParser
	families, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	scraped := time.Now()
	c, err := countersFromCAdvisor(families, "default", "cadv", "service", scraped)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cgroup.CPUUsageNanos != 13828683 || c.ProcessCPUNano != 13828683 {
		t.Errorf("CPU %d ns, want the service container's 13828683 (not the pod's or the sandbox's)", c.Cgroup.CPUUsageNanos)
	}
	if !c.At.Equal(time.UnixMilli(1795416830706)) {
		t.Errorf("counters stamped %v, want the sample's own time", c.At)
	}
	// The idle container's own series: no CFS period yet (the pod-level
	// series has 8), 2.7 MB in use.
	if c.Cgroup.Periods != 0 || c.Cgroup.MemoryCurrentBytes != 2781184 || c.Cgroup.MemoryPeakBytes < c.Cgroup.MemoryCurrentBytes {
		t.Errorf("stats %+v, want the service container's series", *c.Cgroup)
	}
	if _, err := countersFromCAdvisor(families, "default", "other", "service", scraped); err == nil || !strings.Contains(err.Error(), "default/other") {
		t.Errorf("a pod cAdvisor does not list gave %v, want an error naming it", err)
	}
}
