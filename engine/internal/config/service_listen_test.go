package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestServiceOptionErrors: the placeholders of a pprof listener of the
// service's own and service.env_from are checked like every other key,
// with the line, the key, the value and what to write instead.
func TestServiceOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml   string
		line         int
		field, value string
		also         string
	}{
		{"pprof placeholder typo", svc + "  env: {ADMIN: \"{pprof_adr}\"}\n", 4, "service.env.ADMIN", "{pprof_adr}", "did you mean {pprof_addr}?"},
		{"pprof port typo", svc + "  env: {ADMIN: \"{pprofport}\"}\n", 4, "service.env.ADMIN", "{pprofport}", "did you mean {pprof_port}?"},
		{"pprof listener on kubernetes", "service:\n  package: ./x\n  args: [-addr, \"{addr}\", -debug, \"{pprof_addr}\"]\ntarget: kubernetes\n", 3, "service.args", "", "target kubernetes does not support"},
		{"env_from not a mapping", svc + "  env_from: [PERFGATE_DB_PASSWORD]\n", 4, "service.env_from", "", "is a list; want a mapping of the service's variable names"},
		{"env_from bad service name", svc + "  env_from: {DB-PASSWORD: PERFGATE_DB_PASSWORD}\n", 4, "service.env_from.DB-PASSWORD", "DB-PASSWORD", "is not an environment variable name"},
		{"env_from value with $", svc + "  env_from: {DB_PASSWORD: $PERFGATE_DB_PASSWORD}\n", 4, "service.env_from.DB_PASSWORD", "$PERFGATE_DB_PASSWORD", "write the name without $, like PERFGATE_DB_PASSWORD"},
		{"env and env_from both", svc + "  env: {DB_PASSWORD: x}\n  env_from: {DB_PASSWORD: PERFGATE_DB_PASSWORD}\n", 5, "service.env_from.DB_PASSWORD", "DB_PASSWORD", "is also set by service.env.DB_PASSWORD"},
		{"env_from on kind", svc + "  env_from: {DB_PASSWORD: PERFGATE_DB_PASSWORD}\ntarget: kind\n", 4, "service.env_from", "", "is not supported on target kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("perfgate.yml", []byte(tc.yaml))
			errs := Errors(err)
			if len(errs) != 1 {
				t.Fatalf("want one error, got %d: %v", len(errs), err)
			}
			e := errs[0]
			if e.Line != tc.line || e.Field != tc.field || e.Value != tc.value || !strings.Contains(e.Error(), tc.also) {
				t.Errorf("got line %d field %q value %q: %v\nwant line %d field %q value %q and %q", e.Line, e.Field, e.Value, e, tc.line, tc.field, tc.value, tc.also)
			}
		})
	}
}

// TestPprofListener: {pprof_addr} and {pprof_port} ask for a second
// address, filled in args and env like {addr} and {port}.
func TestPprofListener(t *testing.T) {
	c, err := Parse("perfgate.yml", []byte("service:\n  package: ./x\n  args: [-addr, \"{addr}\", -debug, \"{pprof_addr}\"]\n  env: {DEBUG_PORT: \"{pprof_port}\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.SeparatePprof() {
		t.Error("SeparatePprof() = false with {pprof_addr} in args")
	}
	l := Listen{Addr: "127.0.0.1:4000", Port: 4000, PprofAddr: "127.0.0.1:4001", PprofPort: 4001}
	if got, want := c.Args(l), []string{"-addr", "127.0.0.1:4000", "-debug", "127.0.0.1:4001"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Args = %q, want %q", got, want)
	}
	if got, want := c.Env(l), []string{"DEBUG_PORT=4001"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
	if got := c.ResetEnv(); got != nil {
		t.Errorf("ResetEnv = %q: an entry about a listener has no value before the service starts", got)
	}
	plain, err := Parse("perfgate.yml", []byte(svc))
	if err != nil {
		t.Fatal(err)
	}
	if plain.SeparatePprof() {
		t.Error("SeparatePprof() = true without a pprof placeholder")
	}
}

// TestEnvFrom: the service's variables from perfgate's environment reach
// Env and ResetEnv; a variable that is not set is an error naming both
// names and no value.
func TestEnvFrom(t *testing.T) {
	const secret = "s3cr3t-value-never-printed"
	t.Setenv("PERFGATE_TEST_DB_PASSWORD", secret)
	c, err := Parse("perfgate.yml", []byte(svc+"  env: {A: x}\n  env_from: {DB_PASSWORD: PERFGATE_TEST_DB_PASSWORD, TOKEN: PERFGATE_TEST_UNSET_TOKEN}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = c.CheckEnvFrom("perfgate.yml")
	if err == nil || !strings.Contains(err.Error(), `perfgate.yml: service.env_from.TOKEN: "PERFGATE_TEST_UNSET_TOKEN" is not set`) || !strings.Contains(err.Error(), "the service's TOKEN") {
		t.Errorf("CheckEnvFrom = %v, want the unset PERFGATE_TEST_UNSET_TOKEN named with TOKEN", err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "DB_PASSWORD") {
		t.Errorf("CheckEnvFrom names a variable that is set, or its value: %v", err)
	}
	want := []string{"A=x", "DB_PASSWORD=" + secret}
	if got := c.Env(Listen{Addr: "127.0.0.1:1", Port: 1}); !reflect.DeepEqual(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
	if got := c.ResetEnv(); !reflect.DeepEqual(got, want) {
		t.Errorf("ResetEnv = %q, want %q", got, want)
	}
	if got := c.EnvFromNames(); !reflect.DeepEqual(got, []string{"DB_PASSWORD", "TOKEN"}) {
		t.Errorf("EnvFromNames = %q", got)
	}
	t.Setenv("PERFGATE_TEST_UNSET_TOKEN", "")
	if err := c.CheckEnvFrom("perfgate.yml"); err != nil {
		t.Errorf("CheckEnvFrom with every variable set (one empty) = %v", err)
	}
}
