package cgroup

import "fmt"

func (g *Group) setLimitsV1(l Limits) error {
	cpu, mem := g.dirs["cpu"], g.dirs["memory"]
	if err := writeFile(cpu, "cpu.cfs_period_us", fmt.Sprint(l.CPUPeriodMicros)); err != nil {
		return err
	}
	if err := writeFile(cpu, "cpu.cfs_quota_us", fmt.Sprint(l.CPUMillicores*l.CPUPeriodMicros/1000)); err != nil {
		return err
	}
	if err := writeFile(mem, "memory.limit_in_bytes", fmt.Sprint(l.MemoryBytes)); err != nil {
		return err
	}
	// Without this a host with swap would page the service out instead of
	// enforcing the limit; hosts without swap reject or ignore it harmlessly.
	_ = writeFile(mem, "memory.swappiness", "0")
	return nil
}

func (g *Group) limitsV1() (Limits, error) {
	period, err := readInt(g.dirs["cpu"], "cpu.cfs_period_us")
	if err != nil {
		return Limits{}, err
	}
	quota, err := readInt(g.dirs["cpu"], "cpu.cfs_quota_us")
	if err != nil {
		return Limits{}, err
	}
	mem, err := readInt(g.dirs["memory"], "memory.limit_in_bytes")
	if err != nil {
		return Limits{}, err
	}
	l := Limits{CPUPeriodMicros: period, MemoryBytes: mem}
	if quota > 0 {
		l.CPUMillicores = quota * 1000 / period
	}
	return l, nil
}

func (g *Group) statsV1() (Stats, error) {
	var s Stats
	var err error
	if s.CPUUsageNanos, err = readInt(g.dirs["cpuacct"], "cpuacct.usage"); err != nil {
		return s, err
	}
	cpu, err := readKeyed(g.dirs["cpu"], "cpu.stat")
	if err != nil {
		return s, err
	}
	s.Periods, s.ThrottledPeriods, s.ThrottledNanos = cpu["nr_periods"], cpu["nr_throttled"], cpu["throttled_time"]
	mem := g.dirs["memory"]
	if s.MemoryCurrentBytes, err = readInt(mem, "memory.usage_in_bytes"); err != nil {
		return s, err
	}
	if s.MemoryPeakBytes, err = readInt(mem, "memory.max_usage_in_bytes"); err != nil {
		return s, err
	}
	oom, err := readKeyed(mem, "memory.oom_control")
	if err != nil {
		return s, err
	}
	s.OOMKills = oom["oom_kill"]
	return s, nil
}
