package config

import (
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
)

// EnvFromTargets are the targets that pass service.env_from to the
// service without writing its values anywhere: a process's environment
// (local) or the docker client's, which the container inherits by name
// (docker run --env NAME). kind and kubernetes would have to write them
// into the pod's spec in plain text, readable by whoever can read the
// Deployment, so they refuse env_from.
var EnvFromTargets = []string{"local", "docker"}

const envFromWant = `a mapping of the service's variable names to the names of variables in perfgate's environment, like {DB_PASSWORD: PERFGATE_DB_PASSWORD}`

// envFrom is service.env_from as KEY=VALUE entries sorted by key, each
// value read from perfgate's environment now; a variable that is not set
// is left out (CheckEnvFrom refuses it before anything runs).
func (c *Config) envFrom() []string {
	keys := make([]string, 0, len(c.Service.EnvFrom))
	for k := range c.Service.EnvFrom {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var env []string
	for _, k := range keys {
		if v, ok := os.LookupEnv(c.Service.EnvFrom[k]); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// EnvFromNames are the names of the service's variables that come from
// service.env_from, sorted: a target that must not show their values
// passes these by name.
func (c *Config) EnvFromNames() []string {
	names := make([]string, 0, len(c.Service.EnvFrom))
	for k := range c.Service.EnvFrom {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// CheckEnvFrom reports every service.env_from entry whose variable is not
// set in perfgate's environment, naming both variables and never a value.
// It runs before anything is built, since a service started without its
// secret fails in ways that say nothing about the cause; file names the
// perfgate.yml in the errors.
func (c *Config) CheckEnvFrom(file string) error {
	var errs []error
	for _, k := range c.EnvFromNames() {
		from := c.Service.EnvFrom[k]
		if _, ok := os.LookupEnv(from); !ok {
			errs = append(errs, &Error{File: file, Field: "service.env_from." + k, Value: from,
				Problem: "is not set in perfgate's environment, so the service's " + k + " would be missing",
				Want:    "export " + from + " before running perfgate (under sudo: sudo --preserve-env=" + from + "; in the Action: an env: entry for " + from + " on the step)"})
		}
	}
	return errors.Join(errs...)
}

// EnvFromTargetProblem says why target cannot pass service.env_from, or ""
// when it can. The session asks again when --target overrides the file's.
func EnvFromTargetProblem(target string) string {
	if slices.Contains(EnvFromTargets, target) || !slices.Contains(Targets, target) {
		return ""
	}
	return "is not supported on target " + target + ": its values would be written into the pod's spec in plain text"
}

// validateEnvFrom checks service.env_from's names, that no variable is
// given by both env and env_from, and that the target passes it.
func (d *diagnostics) validateEnvFrom(c *Config) {
	s := &c.Service
	for _, k := range c.EnvFromNames() {
		f := "service.env_from." + k
		if !envName.MatchString(k) {
			d.failKey(f, k, Error{Problem: "is not an environment variable name", Want: "letters, digits and _, not starting with a digit"})
		}
		if _, both := s.Env[k]; both {
			d.failKey(f, k, Error{Problem: "is also set by service.env." + k, Want: "each variable in one of service.env and service.env_from"})
		}
		if from := s.EnvFrom[k]; !envName.MatchString(from) {
			e := Error{Problem: "is not the name of a variable in perfgate's environment", Want: envFromWant}
			if strings.HasPrefix(from, "$") {
				e.Hint = "write the name without $, like " + strings.Trim(from, "${}")
			}
			d.fail(f, from, e)
		}
	}
	if len(s.EnvFrom) == 0 || d.anyBad("target") {
		return
	}
	if problem := EnvFromTargetProblem(c.Target); problem != "" {
		d.fail("service.env_from", "", Error{Problem: problem, Want: "target: " + strings.Join(EnvFromTargets, " or ") + " with service.env_from (docs/services.md)"})
	}
}
