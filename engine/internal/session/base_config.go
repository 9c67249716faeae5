package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// gateFromBase makes the base revision's perfgate.yml decide the gate: its
// gate: and validity: sections replace head's, so a pull request cannot
// relax the thresholds it is judged by. What head changed is recorded in
// the report and warned about. Without a base copy of the file (a
// --base-dir, a config outside the repository, a file the base does not
// have, or one this perfgate cannot read) head's values stand, and the
// report says so.
func (g *invocation) gateFromBase(ctx context.Context, base *build.Base, configPath string) error {
	if base.Commit == "" {
		return nil
	}
	short := base.Commit[:min(12, len(base.Commit))]
	data, rel, err := base.ReadAtBase(ctx, configPath)
	if errors.Is(err, build.ErrNotAtBase) {
		g.warn(fmt.Sprintf("%v, so the gate and validity thresholds are the pull request's own, from %s as given", err, configPath))
		return nil
	}
	if err != nil {
		return err
	}
	baseCfg, err := config.Parse(fmt.Sprintf("%s at %s", rel, short), data)
	if err != nil {
		g.warn(fmt.Sprintf("the base revision's %s cannot be read by this perfgate (%v), so its gate and validity thresholds come from the pull request's own copy", rel, err))
		return nil
	}
	g.rep.ThresholdsFrom = report.ThresholdsFromBase
	changes := configChanges(baseCfg, g.cfg)
	if len(changes) == 0 {
		return nil
	}
	g.cfg.Gate, g.cfg.Validity = baseCfg.Gate, baseCfg.Validity
	if err := verdict.CheckPlan(configPath+" (with the base's gate)", g.cfg); err != nil {
		return &ConfigError{Err: err}
	}
	g.rep.Config = g.cfg.Report()
	g.rep.ConfigChanges = changes
	keys := make([]string, len(changes))
	for i, c := range changes {
		keys[i] = fmt.Sprintf("%s %s -> %s", c.Key, c.Base, c.Head)
	}
	g.warn(fmt.Sprintf("this pull request changes %s's thresholds (%s); it is gated with the base revision %s's values, and the change applies from the next pull request after it merges",
		rel, strings.Join(keys, ", "), short))
	return nil
}

// configChanges lists the gate and validity keys whose values differ
// between base and head, sorted by key.
func configChanges(base, head *config.Config) []report.ConfigChange {
	var changes []report.ConfigChange
	for _, section := range []struct {
		name       string
		base, head any
	}{
		{"gate", base.Gate, head.Gate},
		{"validity", base.Validity, head.Validity},
	} {
		b, h := jsonFields(section.base), jsonFields(section.head)
		keys := make([]string, 0, len(b))
		for k := range b {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if b[k] != h[k] {
				changes = append(changes, report.ConfigChange{Key: section.name + "." + k, Base: b[k], Head: h[k]})
			}
		}
	}
	return changes
}

// jsonFields is a config section's fields as report.json writes them, by
// key: strings unquoted, numbers as JSON writes them.
func jsonFields(section any) map[string]string {
	data, err := json.Marshal(section)
	if err != nil {
		panic(err) // config sections are plain values that always marshal
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		panic(err)
	}
	fields := make(map[string]string, len(raw))
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			fields[k] = s
		} else {
			fields[k] = string(v)
		}
	}
	return fields
}
