package session

import (
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// goRuntimeEnv are the service variables with which the Go runtime spends
// the same code's CPU and memory differently: GOGC=off or a high
// GOMEMLIMIT hides an allocation regression's collector time, GOMAXPROCS
// changes the throttling under the CPU limit, GODEBUG switches runtime
// behaviour. They belong to the measurement plan although they sit in
// service.env (and service.env_from), so with --base they come from the
// base revision as planKeys do; the rest of the service's environment
// stays head's.
var goRuntimeEnv = []string{"GODEBUG", "GOGC", "GOMAXPROCS", "GOMEMLIMIT"}

// unsetEnv shows a variable the service section does not set.
const unsetEnv = "(unset)"

// runtimeEnvChanges lists the goRuntimeEnv variables whose service.env
// value or service.env_from source differs between base and head, keyed as
// in perfgate.yml (service.env.GOGC). env_from shows the name of the
// runner's variable, never its value, which may be a secret.
func runtimeEnvChanges(base, head *config.Config) []report.ConfigChange {
	var changes []report.ConfigChange
	for _, section := range []struct {
		key        string
		base, head map[string]string
	}{
		{"service.env.", base.Service.Env, head.Service.Env},
		{"service.env_from.", base.Service.EnvFrom, head.Service.EnvFrom},
	} {
		for _, name := range goRuntimeEnv {
			b, h := shownEnv(section.base, name), shownEnv(section.head, name)
			if b != h {
				changes = append(changes, report.ConfigChange{Key: section.key + name, Base: b, Head: h})
			}
		}
	}
	return changes
}

// takeRuntimeEnv gives cfg base's goRuntimeEnv settings in service.env and
// service.env_from, leaving cfg's other variables as they are.
func takeRuntimeEnv(cfg, base *config.Config) {
	cfg.Service.Env = withBaseRuntime(cfg.Service.Env, base.Service.Env)
	cfg.Service.EnvFrom = withBaseRuntime(cfg.Service.EnvFrom, base.Service.EnvFrom)
}

// withBaseRuntime is head's map with base's goRuntimeEnv entries, a new
// map so that head's parsed config is not changed under another reader.
func withBaseRuntime(head, base map[string]string) map[string]string {
	out := make(map[string]string, len(head))
	for k, v := range head {
		out[k] = v
	}
	for _, name := range goRuntimeEnv {
		delete(out, name)
		if v, ok := base[name]; ok {
			out[name] = v
		}
	}
	if len(out) == 0 && head == nil {
		return nil // report.json leaves an absent map out as before
	}
	return out
}

func shownEnv(env map[string]string, name string) string {
	if v, ok := env[name]; ok {
		return v
	}
	return unsetEnv
}
