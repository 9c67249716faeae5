package initconfig

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config/reference"
)

// commentWidth is where comments wrap.
const commentWidth = 76

// ConfigYAML is the commented perfgate.yml for a plan. Everything taken
// from the analysed module (paths, flag names, file names) is untrusted:
// values are written as double-quoted YAML strings and comments are made
// single-line, so nothing read from the source can add a key.
func ConfigYAML(plan *Plan, modulePath string) string {
	var b strings.Builder
	// The same first line as perfgate's examples: editors with the YAML
	// language server check the file against perfgate's JSON Schema.
	b.WriteString("# yaml-language-server: $schema=" + reference.SchemaURL + "\n")
	comment(&b, "", fmt.Sprintf("perfgate.yml for %s, written by `perfgate init` from the module's source. Each value is a guess; the comment above it says what it is based on, and the lines marked ASSUMED or NOT SERVED YET need a change in the service (perfgate init printed it). Every key is described in docs/config.md of perfgate. Check this file with `perfgate config check perfgate.yml`.", modulePath))
	b.WriteString("version: 1\n\nservice:\n")
	comment(&b, "  ", "The command to build and start: "+plan.Why["service.package"]+".")
	fmt.Fprintf(&b, "  package: %s\n", quote(plan.Package))
	comment(&b, "  ", "perfgate starts base and head at the same time, each on an address of its own: {addr} is 127.0.0.1:PORT and {port} the port, chosen for each process. Here "+plan.Why["service.address"]+".")
	if len(plan.Args) > 0 {
		quoted := make([]string, len(plan.Args))
		for i, a := range plan.Args {
			quoted[i] = quote(a)
		}
		fmt.Fprintf(&b, "  args: [%s]\n", strings.Join(quoted, ", "))
	}
	if len(plan.Env) > 0 {
		if why := plan.Why["service.env"]; why != "" {
			comment(&b, "  ", why+".")
		}
		b.WriteString("  env:\n")
		for _, kv := range plan.Env {
			fmt.Fprintf(&b, "    %s: %s\n", quote(kv[0]), quote(kv[1]))
		}
	}
	comment(&b, "  ", "Polled with GET until it answers 2xx; the measurement starts then. Here "+plan.Why["service.ready"]+".")
	fmt.Fprintf(&b, "  ready: %s\n", quote(plan.Ready))
	comment(&b, "  ", "Where net/http/pprof answers; perfgate reads profiles and runtime counters (allocations, goroutines, heap) there. Here "+plan.Why["service.pprof"]+".")
	fmt.Fprintf(&b, "  pprof: %s\n\n", quote(plan.Pprof))

	comment(&b, "", "The limits base and head each run under (GOMAXPROCS follows cpu). These are perfgate's defaults, written out to be changed: give the service what it has in production, and raise memory if a round fails with an OOM kill.")
	b.WriteString("resources:\n  cpu: 1\n  memory: 256Mi\n\n")

	b.WriteString("load:\n")
	comment(&b, "  ", "Requests per second to each of base and head: 300, not the default 500, so that both sides and the load generator fit a 2-core runner on the first try (a gate of the example service at 500 req/s on 2 cores had a third of its rounds invalid). A round where the service cannot keep up (achieved rate under 99%, or base and head together keeping the shared CPUs over 75% busy) is invalid and replaced; raise the rate on a bigger runner, lower it when rounds are invalid.")
	b.WriteString("  rate: 300\n")
	comment(&b, "  ", "Sent round-robin. Here "+plan.Why["load.requests"]+".")
	b.WriteString("  requests:\n")
	for _, r := range plan.Requests {
		fmt.Fprintf(&b, "    - %s\n", quote(r))
	}
	return b.String()
}

// quote writes s as a double-quoted YAML scalar. Go's escapes (\n, \t,
// \xXX, \uXXXX) are YAML's too.
func quote(s string) string { return strconv.Quote(s) }

// comment writes text as YAML comment lines, wrapped, with every control
// or line-breaking character of untrusted text turned into a space.
func comment(b *strings.Builder, indent, text string) {
	words := strings.Fields(singleLine(text))
	line := indent + "#"
	for _, w := range words {
		if len(line)+1+len(w) > commentWidth && len(line) > len(indent)+1 {
			b.WriteString(line + "\n")
			line = indent + "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
}

// singleLine replaces control characters and Unicode line and paragraph
// separators, which YAML or an editor may read as a line break, with
// spaces.
func singleLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
}
