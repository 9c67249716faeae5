package config

import (
	"fmt"
	"slices"
	"strings"
)

// ResetTargets are the targets that run service.reset: those whose service
// runs on the machine perfgate runs on (as a process or a container), where
// the reset runs too and reaches what the service reaches. A cluster's pods
// reach other things than the host does, so kind and kubernetes refuse a
// reset rather than reset something the service never sees.
var ResetTargets = []string{"local", "docker"}

const resetWant = `a command as a list of strings, like ["psql", "-f", "testdata/reset.sql"] (no shell: write ["sh", "-c", "..."] for one)`

// validateReset checks service.reset and service.reset_timeout, and that
// the target runs a reset.
func (d *diagnostics) validateReset(c *Config) {
	s := &c.Service
	if s.ResetTimeout <= 0 {
		d.fail("service.reset_timeout", s.ResetTimeout.String(), Error{Problem: "must be more than 0", Want: durationWant})
	}
	if len(s.Reset) == 0 {
		return
	}
	if strings.TrimSpace(s.Reset[0]) == "" {
		d.fail("service.reset[0]", s.Reset[0], Error{Problem: "is empty", Want: "the program to run, like psql or ./scripts/reset-db.sh"})
	}
	for i, a := range s.Reset {
		for _, m := range placeholderPattern.FindAllString(a, -1) {
			d.fail(fmt.Sprintf("service.reset[%d]", i), a, Error{
				Problem: "uses the placeholder " + m,
				Want:    "a command without placeholders: the reset runs before base and head start, when neither has an address",
			})
		}
	}
	if problem := ResetTargetProblem(c.Target); problem != "" && !d.anyBad("target") {
		d.fail("service.reset", "", Error{Problem: problem, Want: "target: " + strings.Join(ResetTargets, " or ") + " with service.reset, or no service.reset on " + c.Target})
	}
}

// ResetTargetProblem says why target cannot run service.reset, or "" when
// it can. The session asks again when --target overrides the file's.
func ResetTargetProblem(target string) string {
	if slices.Contains(ResetTargets, target) || !slices.Contains(Targets, target) {
		return ""
	}
	return "is not supported on target " + target + ": the reset runs on the machine perfgate runs on, which the cluster's pods do not share, so it could reset a different database than the one the service uses"
}

// ResetEnv is the reset's share of service.env and service.env_from, as
// KEY=VALUE: every entry but those that name a placeholder ({addr},
// {port}, {pprof_addr}, {pprof_port}), which describe the service's own
// listeners and have no value before it starts.
func (c *Config) ResetEnv() []string {
	var env []string
	for _, kv := range c.Env(Listen{}) {
		k, _, _ := strings.Cut(kv, "=")
		if v, literal := c.Service.Env[k]; !literal || !usesPlaceholder(v) {
			env = append(env, kv)
		}
	}
	return env
}

// usesPlaceholder says whether v names one of the listeners' placeholders.
func usesPlaceholder(v string) bool {
	for _, p := range []string{PlaceholderAddr, PlaceholderPort, PlaceholderPprofAddr, PlaceholderPprofPort} {
		if strings.Contains(v, p) {
			return true
		}
	}
	return false
}
