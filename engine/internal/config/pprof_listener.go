package config

import (
	"slices"
	"strings"
)

// PprofListenerTargets are the targets that can reach a service's pprof
// listener of its own ({pprof_addr} or {pprof_port}): a process on this
// machine (a second free port) or a container (a second published port).
// On kind and kubernetes perfgate reaches the service through the API
// server's pod proxy on its one container port, so they refuse it rather
// than read profiles from the wrong listener.
var PprofListenerTargets = []string{"local", "docker"}

// SeparatePprof says whether the service serves net/http/pprof on a
// listener of its own: service.args or service.env name {pprof_addr} or
// {pprof_port}. perfgate then picks a second address per process and reads
// profiles and runtime counters there, under service.pprof.
func (c *Config) SeparatePprof() bool {
	mentions := func(v string) bool {
		return strings.Contains(v, PlaceholderPprofAddr) || strings.Contains(v, PlaceholderPprofPort)
	}
	if slices.ContainsFunc(c.Service.Args, mentions) {
		return true
	}
	for _, v := range c.Service.Env {
		if mentions(v) {
			return true
		}
	}
	return false
}

// PprofListenerTargetProblem says why target cannot reach a pprof listener
// of the service's own, or "" when it can. The session asks again when
// --target overrides the file's.
func PprofListenerTargetProblem(target string) string {
	if slices.Contains(PprofListenerTargets, target) || !slices.Contains(Targets, target) {
		return ""
	}
	return "uses {pprof_addr} or {pprof_port}, which target " + target + " does not support: perfgate reaches the pods through the API server's proxy on the service's one port, so net/http/pprof must be served on the service's own listener there"
}

// validatePprofListener checks that the target can reach a separate pprof
// listener when the service asks for one.
func (d *diagnostics) validatePprofListener(c *Config) {
	if !c.SeparatePprof() || d.anyBad("target") {
		return
	}
	if problem := PprofListenerTargetProblem(c.Target); problem != "" {
		d.fail("service.args", "", Error{Problem: problem, Want: "target: " + strings.Join(PprofListenerTargets, " or ") + " for a pprof listener of its own, or net/http/pprof on {addr} with target " + c.Target})
	}
}
