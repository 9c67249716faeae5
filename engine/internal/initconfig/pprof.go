package initconfig

import (
	"fmt"
	"strings"
)

// mountAdvice is how to serve pprof on the service's own router, the
// change init asks for when it finds none.
const mountAdvice = "add `import _ \"net/http/pprof\"` and serve http.DefaultServeMux, or mount it on your router: mux.Handle(\"/debug/pprof/\", http.DefaultServeMux) (chi: r.Mount(\"/debug\", middleware.Profiler()); gin: pprof.Register(r) from github.com/gin-contrib/pprof)"

// planPprof decides where perfgate reads profiles: on the service's
// listener, on a separate pprof listener it can give its own address
// ({pprof_addr}), or nowhere (perfgate then gates on load, CPU and cgroup
// figures alone, without allocations or attribution). It returns the
// flags and variables a pprof listener's address is made of.
func planPprof(plan *Plan, f *facts, primary listener, admin *listener, serviceSource source) []source {
	plan.Pprof = "/debug/pprof"
	for _, m := range f.mounts {
		if !onAdmin(m.receiver, primary, admin) {
			plan.Pprof = m.prefix
			plan.Why["service.pprof"] = fmt.Sprintf("net/http/pprof is mounted on the service's router at %s", m.at)
			return switchPprofOn(plan, f, m)
		}
	}
	if f.importsPprof && primary.defaultMux {
		plan.Why["service.pprof"] = fmt.Sprintf("net/http/pprof is imported (%s) and the listener at %s serves http.DefaultServeMux, where it registers", f.pprofImport, primary.at)
		return nil
	}
	if admin != nil {
		var onAdminListener *pprofMount
		for i, m := range f.mounts {
			if onAdmin(m.receiver, primary, admin) {
				onAdminListener = &f.mounts[i]
				break
			}
		}
		if onAdminListener != nil || (f.importsPprof && admin.defaultMux) {
			if onAdminListener != nil {
				plan.Pprof = onAdminListener.prefix
			}
			return planPprofListener(plan, f, *admin, serviceSource)
		}
	}
	plan.Why["service.pprof"] = "NOT SERVED YET: perfgate gates on load, CPU and cgroup figures only until it is (see the change below)"
	if f.importsPprof {
		plan.Todo = append(plan.Todo, fmt.Sprintf(
			"pprof is not served on the service's listener: net/http/pprof is imported (%s), which registers it on http.DefaultServeMux, but the listener at %s serves another handler; mount it there: mux.Handle(\"/debug/pprof/\", http.DefaultServeMux). Without pprof perfgate measures no allocations and cannot say which functions changed",
			f.pprofImport, primary.at))
		return nil
	}
	plan.Todo = append(plan.Todo, "pprof is not served: "+mountAdvice+". Without pprof perfgate measures no allocations and cannot say which functions changed")
	return nil
}

// planPprofListener sets up a separate pprof listener: perfgate gives it
// a port of its own per process through {pprof_addr} or {pprof_port}.
func planPprofListener(plan *Plan, f *facts, admin listener, serviceSource source) []source {
	address := chooseAddress(admin, f.values, pprofListener, serviceSource)
	if address.found {
		plan.Args = append(plan.Args, address.args...)
		plan.Env = append(plan.Env, address.env...)
		plan.Why["service.pprof"] = fmt.Sprintf("pprof is served on a separate listener at %s; %s, given its own port through {pprof_addr}/{pprof_port}", admin.at, address.explain)
		return address.related
	}
	plan.Why["service.pprof"] = fmt.Sprintf("pprof is on a separate listener at %s whose address perfgate cannot set (see the change below)", admin.at)
	where := "whose address init could not find"
	if address.hardCoded != "" {
		where = fmt.Sprintf("hard-coded to %s", address.hardCoded)
	}
	plan.Todo = append(plan.Todo, fmt.Sprintf(
		"pprof is served on a separate listener at %s %s: base and head run at the same time, so the second process cannot bind the same address. Read it from a flag (pprofAddr := flag.String(\"pprof-addr\", \"localhost:6060\", \"host:port of pprof\")) and add \"--pprof-addr\", \"{pprof_addr}\" to service.args, or mount pprof on the service's own router: mux.Handle(\"/debug/pprof/\", http.DefaultServeMux)",
		admin.at, where))
	return address.related
}

// switchPprofOn sets the flag or variable a mount of pprof depends on (if
// cfg.Web.PProf {...}, filled from $INBUCKET_WEB_PPROF) to true, or says
// what to set when init cannot tell. It returns the source it set.
func switchPprofOn(plan *Plan, f *facts, m pprofMount) []source {
	if m.when == nil {
		return nil
	}
	for _, s := range f.values.resolvePrecisely(*m.when) {
		if roleOf(s.name) != roleOther && !strings.Contains(strings.ToLower(s.name), "pprof") {
			continue // an address or port, not a switch
		}
		if s.kind == fromFlag {
			plan.Args = append(plan.Args, "--"+s.name+"=true")
		} else {
			plan.Env = append(plan.Env, [2]string{s.name, "true"})
		}
		plan.Why["service.pprof"] += fmt.Sprintf(" when %s is true, which this file sets", sourceText(s.kind, s.name))
		return []source{s}
	}
	plan.Why["service.pprof"] += " under a condition (see the change below)"
	plan.Todo = append(plan.Todo, fmt.Sprintf(
		"net/http/pprof is mounted at %s only under a condition init could not trace to a flag or variable (%s): make it true in service.args or service.env, or perfgate gets no profiles",
		m.at, strings.Join(m.when.names, ", ")))
	return nil
}
