package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// perfgate.yml holds two kinds of keys, and with --base <revision> they
// come from different revisions.
//
// The measurement plan says what is measured and how it is decided: the
// limits, where and by which design it runs, the load, the rounds, the
// profiles, the thresholds and the validity rules. A pull request that
// could set them could relax its own gate (the smallest reachable pairs,
// the regressed route dropped from load.requests, a noisier design, a
// looser threshold: each turns a regression inconclusive or unseen), so
// they come from the base revision's perfgate.yml, and a change to them
// applies once the pull request merges.
//
// The service section says how to build, start and reach the code under
// test: its package, build options, arguments, environment, ready and
// pprof paths, reset command. Head's code may need its own (a renamed
// ready path, a new flag); whatever it says is code the pull request
// controls anyway, and base and head are built and run with the same
// values, so it cannot favour one side. It stays head's (but for the Go
// runtime's variables in its environment: goRuntimeEnv), as do version
// (the format head's file is written in) and where a cluster is
// (kubernetes:, kind:, which the environment decides like --target;
// kind.node_image has a rule of its own).
//
// planKeys are the plan's top-level keys (JSON names of report.Config);
// TestEveryConfigKeyIsPlanOrService keeps every key in one of the two.
var planKeys = []string{
	"resources", "target", "load", "experiment", "layout", "layout_align", "layout_pairing", "pairs", "max_pairs",
	"profiles", "profile_rounds", "gate", "validity",
}

// serviceKeys are the top-level keys that stay head's (see planKeys).
var serviceKeys = []string{"version", "service", "kubernetes", "kind"}

// gateFromBase makes the base revision's perfgate.yml decide the
// measurement plan (planKeys): it replaces head's, so a pull request
// cannot relax what it is measured and judged by. What head changed is
// recorded in the report (config_changes) and warned about. --target
// still overrides the target. Without a base copy of the file (a
// --base-dir, a config outside the repository, a file the base does not
// have, or one this perfgate cannot read) head's plan stands, and the
// report says so; a file new in this pull request is marked
// thresholds_from: head.
func (g *invocation) gateFromBase(ctx context.Context, base *build.Base, o GateOptions) error {
	if base.Commit == "" {
		return nil
	}
	short := base.Commit[:min(12, len(base.Commit))]
	data, rel, err := base.ReadAtBase(ctx, o.ConfigPath)
	if errors.Is(err, build.ErrNotAtBase) {
		if errors.Is(err, build.ErrAddedByHead) {
			g.rep.ThresholdsFrom = report.ThresholdsFromHead
		}
		g.warn(fmt.Sprintf("%v, so the measurement plan and thresholds are the pull request's own, from %s as given", err, o.ConfigPath))
		return nil
	}
	if err != nil {
		return err
	}
	baseCfg, err := config.Parse(fmt.Sprintf("%s at %s", rel, short), data)
	if err != nil {
		g.warn(fmt.Sprintf("the base revision's %s cannot be read by this perfgate (%v), so its measurement plan and thresholds come from the pull request's own copy", rel, err))
		return nil
	}
	g.rep.ThresholdsFrom = report.ThresholdsFromBase
	if o.Target != "" {
		baseCfg.Target = o.Target // --target decides for both
	}
	changes := append(configChanges(baseCfg, g.cfg), runtimeEnvChanges(baseCfg, g.cfg)...)
	if len(changes) == 0 {
		return nil
	}
	takePlan(g.cfg, baseCfg)
	takeRuntimeEnv(g.cfg, baseCfg)
	if err := g.checkPlanFits(o, rel, short); err != nil {
		return err
	}
	g.rep.Config = g.cfg.Report()
	g.rep.ConfigChanges = changes
	keys := make([]string, len(changes))
	for i, c := range changes {
		keys[i] = fmt.Sprintf("%s %s -> %s", c.Key, c.Base, c.Head)
	}
	g.warn(fmt.Sprintf("this pull request changes %s's measurement plan (%s); it is measured and gated with the base revision %s's values, and the change applies from the next pull request after it merges",
		rel, strings.Join(keys, ", "), short))
	return nil
}

// checkPlanFits checks head's service under the base's plan as perfgate.yml
// and the command line were checked: a plan key can refuse a service
// setting (layout: random cannot relink service.build.command, a target
// may not run service.reset).
func (g *invocation) checkPlanFits(o GateOptions, rel, short string) error {
	where := fmt.Sprintf("%s (head's service with the measurement plan of %s at %s)", o.ConfigPath, rel, short)
	fix := fmt.Errorf("change the plan in the base branch's %s first, then re-run this pull request", rel)
	if err := g.cfg.Validate(); err != nil {
		return configErrorf("%s: %w; %w", where, err, fix)
	}
	if err := checkRunnable(where, g.cfg, g.targets); err != nil {
		return err
	}
	if err := checkPrebuilt(g.cfg, map[string]string{"--base-binary": o.BaseBinary, "--head-binary": o.HeadBinary}, true); err != nil {
		return err
	}
	if err := verdict.CheckPlan(where, g.cfg); err != nil {
		return &ConfigError{Err: err}
	}
	return nil
}

// takePlan replaces the plan's keys of cfg with base's.
func takePlan(cfg, base *config.Config) {
	to, from := reflect.ValueOf(cfg).Elem(), reflect.ValueOf(base).Elem()
	for i := range to.NumField() {
		if slices.Contains(planKeys, jsonName(to.Type().Field(i))) {
			to.Field(i).Set(from.Field(i))
		}
	}
}

// configChanges lists the plan's keys whose values differ between base
// and head, named as in perfgate.yml (gate.cpu, pairs.min, load.requests),
// in the order of report.Config and by key within a section.
func configChanges(base, head *config.Config) []report.ConfigChange {
	b, h := planValues(base), planValues(head)
	var changes []report.ConfigChange
	for i := range b {
		if b[i].raw != h[i].raw {
			base, head := b[i].shown, h[i].shown
			if base == head { // a short form that hides the difference
				base, head = b[i].raw, h[i].raw
			}
			changes = append(changes, report.ConfigChange{Key: b[i].key, Base: base, Head: head})
		}
	}
	return changes
}

// planValue is one key of the plan: its value as report.json's config
// writes it (raw) and as a change shows it.
type planValue struct{ key, raw, shown string }

// planValues are cfg's plan keys, a section's fields each on their own.
func planValues(cfg *config.Config) []planValue {
	var values []planValue
	v := reflect.ValueOf(cfg).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name := jsonName(f)
		if !slices.Contains(planKeys, name) {
			continue
		}
		if f.Type.Kind() != reflect.Struct {
			values = append(values, valueOf(keyOf(f, ""), v.Field(i).Interface()))
			continue
		}
		var section []planValue
		for j := range f.Type.NumField() {
			section = append(section, valueOf(keyOf(f.Type.Field(j), name+"."), v.Field(i).Field(j).Interface()))
		}
		slices.SortFunc(section, func(a, b planValue) int { return strings.Compare(a.key, b.key) })
		values = append(values, section...)
	}
	return values
}

// valueOf is a value as report.json writes it and as a change shows it:
// strings unquoted, lists of strings and requests ("GET /path") joined
// with ", ", anything else as JSON.
func valueOf(key string, value any) planValue {
	data, err := json.Marshal(value)
	if err != nil {
		panic(err) // config values are plain values that always marshal
	}
	p := planValue{key: key, raw: string(data), shown: string(data)}
	var s string
	var list []string
	switch requests, ok := value.([]config.Request); {
	case ok:
		for _, r := range requests {
			list = append(list, r.String())
		}
		p.shown = strings.Join(list, ", ")
	case json.Unmarshal(data, &s) == nil:
		p.raw, p.shown = s, s
	case json.Unmarshal(data, &list) == nil:
		p.shown = strings.Join(list, ", ")
	}
	return p
}

// jsonName is a field's key in report.json.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// keyOf is a field's key in perfgate.yml: its `key` tag (pairs.min) or its
// JSON name under prefix.
func keyOf(f reflect.StructField, prefix string) string {
	if key := f.Tag.Get("key"); key != "" {
		return key
	}
	return prefix + jsonName(f)
}
