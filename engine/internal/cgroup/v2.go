package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func (g *Group) setLimitsV2(l Limits) error {
	if err := enableControllersV2(filepath.Dir(g.dirs[""])); err != nil {
		return err
	}
	dir := g.dirs[""]
	if err := writeFile(dir, "cpu.max", fmt.Sprintf("%d %d", l.CPUMillicores*l.CPUPeriodMicros/1000, l.CPUPeriodMicros)); err != nil {
		return err
	}
	if err := writeFile(dir, "memory.max", fmt.Sprint(l.MemoryBytes)); err != nil {
		return err
	}
	// Swap would let the service page out instead of hitting the limit.
	_ = writeFile(dir, "memory.swap.max", "0")
	return nil
}

// enableControllersV2 makes cpu and memory available to the parent's
// children; the kernel refuses groups without them otherwise.
func enableControllersV2(parent string) error {
	data, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if err != nil {
		return err
	}
	enabled := strings.Fields(string(data))
	if contains(enabled, "cpu") && contains(enabled, "memory") {
		return nil
	}
	return writeFile(parent, "cgroup.subtree_control", "+cpu +memory")
}

func (g *Group) limitsV2() (Limits, error) {
	dir := g.dirs[""]
	data, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	if err != nil {
		return Limits{}, err
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return Limits{}, fmt.Errorf("unexpected cpu.max %q", data)
	}
	period, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return Limits{}, err
	}
	l := Limits{CPUPeriodMicros: period}
	if fields[0] != "max" {
		quota, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return Limits{}, err
		}
		l.CPUMillicores = quota * 1000 / period
	}
	if l.MemoryBytes, err = readInt(dir, "memory.max"); err != nil {
		return Limits{}, err
	}
	return l, nil
}

func (g *Group) statsV2() (Stats, error) {
	var s Stats
	dir := g.dirs[""]
	cpu, err := readKeyed(dir, "cpu.stat")
	if err != nil {
		return s, err
	}
	s.CPUUsageNanos = cpu["usage_usec"] * 1000
	s.Periods, s.ThrottledPeriods, s.ThrottledNanos = cpu["nr_periods"], cpu["nr_throttled"], cpu["throttled_usec"]*1000
	if s.MemoryCurrentBytes, err = readInt(dir, "memory.current"); err != nil {
		return s, err
	}
	// memory.peak exists from Linux 5.19; older kernels leave it at 0.
	s.MemoryPeakBytes, _ = readInt(dir, "memory.peak")
	events, err := readKeyed(dir, "memory.events")
	if err != nil {
		return s, err
	}
	s.OOMKills = events["oom_kill"]
	return s, nil
}
