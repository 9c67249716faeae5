package kubernetes

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	corev1 "k8s.io/api/core/v1"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// counterSource reads one service container's cumulative counters.
type counterSource interface {
	read() (target.Counters, error)
}

// counterSource prefers the container's own cgroup, readable when the node
// is this machine (a local cluster, kind's node containers): exact at any
// instant. Otherwise it reads the kubelet's cAdvisor metrics through the
// API server, which are refreshed only every few seconds; the report
// warns about that.
func (t *Target) counterSource(ctx context.Context, pod *corev1.Pod) (counterSource, error) {
	if pid, group, err := containerCgroup(pod); err == nil {
		return &cgroupCounters{pid: pid, group: group}, nil
	}
	return &cadvisorCounters{t: t, node: pod.Spec.NodeName, namespace: pod.Namespace, pod: pod.Name}, nil
}

// containerCgroup finds the first process of pod's (last) container on
// this machine and the cgroup it is in.
func containerCgroup(pod *corev1.Pod) (int, *cgroup.Group, error) {
	pid, err := containerProcess(pod)
	if err != nil {
		return 0, nil, err
	}
	group, err := cgroup.OfProcess(pid)
	return pid, group, err
}

// containerProcess finds the first process of pod's (last) container on
// this machine; an error says this machine does not see it, which puts
// the pod's node elsewhere. Prepare asks it of the load generator's pod
// to tell the report, before the first run, where counters come from and
// whether the run is driven from here and placed (placement.go).
func containerProcess(pod *corev1.Pod) (int, error) {
	var containerID string
	for _, cs := range pod.Status.ContainerStatuses {
		if _, id, ok := strings.Cut(cs.ContainerID, "://"); ok {
			containerID = id
		}
	}
	if containerID == "" {
		return 0, fmt.Errorf("pod %s has no running container", pod.Name)
	}
	return findContainerProcess("/sys/fs/cgroup", containerID)
}

// findContainerProcess finds the cgroup directory named after the
// container (cgroupfs: <id>; systemd: cri-containerd-<id>.scope) and
// returns the first process in it.
func findContainerProcess(root, containerID string) (int, error) {
	pid := 0
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || !strings.Contains(d.Name(), containerID) {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		if err != nil {
			return nil
		}
		if first, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n"); first != "" {
			if pid, err = strconv.Atoi(first); err == nil {
				return fs.SkipAll
			}
		}
		return nil
	})
	if pid == 0 {
		return 0, fmt.Errorf("no cgroup of container %s under %s", containerID, root)
	}
	return pid, nil
}

// cgroupCounters reads the container's cgroup and its process on this
// machine, exactly as the docker target does.
type cgroupCounters struct {
	pid   int
	group *cgroup.Group
}

func (c *cgroupCounters) read() (target.Counters, error) {
	return target.ReadCounters(c.pid, c.group)
}

// cadvisorCounters reads the kubelet's cAdvisor metrics of the container
// through the API server's node proxy.
type cadvisorCounters struct {
	t                    *Target
	node, namespace, pod string
}

func (c *cadvisorCounters) read() (target.Counters, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	body, err := c.t.cluster.clientset.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", c.node, "proxy/metrics/cadvisor").Stream(ctx)
	if err != nil {
		return target.Counters{}, fmt.Errorf("read cAdvisor metrics of node %s: %w", c.node, err)
	}
	defer body.Close()
	var parser expfmt.TextParser
	families, err := parser.TextToMetricFamilies(body)
	if err != nil {
		return target.Counters{}, fmt.Errorf("parse cAdvisor metrics of node %s: %w", c.node, err)
	}
	return countersFromCAdvisor(families, c.namespace, c.pod, "service", time.Now())
}

// countersFromCAdvisor picks the service container's series out of a
// cAdvisor scrape. Counters are stamped with the CPU sample's own time
// when cAdvisor gives one: the kubelet refreshes them only every few
// seconds, so the scrape's time would overstate the interval they cover.
func countersFromCAdvisor(families map[string]*dto.MetricFamily, namespace, pod, container string, scraped time.Time) (target.Counters, error) {
	sample := func(name string) (*dto.Metric, bool) {
		f := families[name]
		if f == nil {
			return nil, false
		}
		for _, m := range f.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			// Per-CPU series, where cAdvisor exports them, are parts of the
			// "total" one.
			if cpu, ok := labels["cpu"]; ok && cpu != "total" {
				continue
			}
			if labels["namespace"] == namespace && labels["pod"] == pod && labels["container"] == container {
				return m, true
			}
		}
		return nil, false
	}
	value := func(name string) float64 {
		m, ok := sample(name)
		switch {
		case !ok:
			return 0
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
		return 0
	}
	cpuSample, ok := sample("container_cpu_usage_seconds_total")
	if !ok {
		return target.Counters{}, fmt.Errorf("cAdvisor has no container_cpu_usage_seconds_total for %s/%s container %s", namespace, pod, container)
	}
	at := scraped
	if ms := cpuSample.GetTimestampMs(); ms > 0 {
		at = time.UnixMilli(ms)
	}
	cpu := value("container_cpu_usage_seconds_total")
	return target.Counters{
		At:             at,
		ProcessCPUNano: int64(cpu * 1e9),
		Cgroup: &cgroup.Stats{
			CPUUsageNanos:      int64(cpu * 1e9),
			Periods:            int64(value("container_cpu_cfs_periods_total")),
			ThrottledPeriods:   int64(value("container_cpu_cfs_throttled_periods_total")),
			ThrottledNanos:     int64(value("container_cpu_cfs_throttled_seconds_total") * 1e9),
			MemoryCurrentBytes: int64(value("container_memory_usage_bytes")),
			MemoryPeakBytes:    int64(value("container_memory_max_usage_bytes")),
			OOMKills:           int64(value("container_oom_events_total")),
		},
	}, nil
}
