package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/perfgate/perfgate/engine/internal/history"
)

// historyCommand is `perfgate history add`: it adds history lines written
// elsewhere (a recording's results/history-entry.json, a trend's
// history-records.jsonl) to a history directory, idempotently, so a CI job
// can re-apply them after another job changed the history.
func historyCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "add" {
		fmt.Fprint(stderr, "usage: perfgate history add --history DIR --records FILE\n")
		return exitConfig
	}
	fs := flag.NewFlagSet("history add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("history", "", "the history directory")
	records := fs.String("records", "", "a file of history lines (JSON Lines): entries and confirmations")
	keepEntries := fs.Int("keep-entries", history.DefaultKeep.Entries, "entries kept per config (the oldest go)")
	keepConfirmations := fs.Int("keep-confirmations", history.DefaultKeep.Confirmations, "confirmations kept per config")
	if !parseFlags(fs, args[1:], stderr) {
		return exitConfig
	}
	refuse := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "perfgate history add: "+format+"\n", a...)
		return exitConfig
	}
	switch {
	case *dir == "":
		return refuse("--history is missing; pass the history directory")
	case *records == "":
		return refuse("--records is missing; pass a file of history lines, e.g. results/history-entry.json")
	case *keepEntries < 1 || *keepConfirmations < 1:
		return refuse("--keep-entries %d and --keep-confirmations %d must be 1 or more", *keepEntries, *keepConfirmations)
	}
	data, err := os.ReadFile(*records)
	if err != nil {
		return refuse("--records %s cannot be read: %v", *records, err)
	}
	byConfig := map[string][]any{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var h struct {
			Config string `json:"config"`
		}
		if err := json.Unmarshal(raw, &h); err != nil || h.Config == "" || h.Config != history.ConfigName(h.Config) {
			return refuse("line %d of %s is not a history line with a config name (%.60q)", n, *records, raw)
		}
		if _, ok := byConfig[h.Config]; !ok {
			order = append(order, h.Config)
		}
		byConfig[h.Config] = append(byConfig[h.Config], json.RawMessage(append([]byte(nil), raw...)))
	}
	if err := sc.Err(); err != nil {
		return refuse("--records %s: %v", *records, err)
	}
	keep := history.Keep{Entries: *keepEntries, Confirmations: *keepConfirmations, Unreadable: history.DefaultKeep.Unreadable}
	for _, config := range order {
		added, warnings, err := history.Add(*dir, config, keep, byConfig[config]...)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "perfgate history add: warning: %s\n", w)
		}
		if err != nil {
			fmt.Fprintf(stderr, "perfgate history add: %v\n", err)
			return exitConfig
		}
		fmt.Fprintf(stdout, "added %d of %d lines to %s\n", added, len(byConfig[config]), history.Path(*dir, config))
	}
	giveBack(*dir, stderr)
	return exitPass
}
