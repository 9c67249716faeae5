// Package history is the record of nightly measurements that outlives CI
// artifacts: one compact, versioned line per `perfgate run`, kept in one
// JSON Lines file per config (a directory on a laptop, a data branch in
// CI), read back by `perfgate trend`.
//
// # Compatibility
//
// A history is written by one engine version and read by later ones, for
// months. The rules are report.json's: keys are never renamed or removed
// without bumping Schema, new fields are optional, and a reader keeps a
// line it cannot read (corrupt, or written by a newer schema) verbatim and
// warns, never failing and never dropping it.
package history

import "time"

// Schema is the version of the lines this engine writes.
const Schema = 1

// Kinds of line in a history file.
const (
	KindEntry        = "entry"
	KindConfirmation = "confirmation"
)

// Entry is one recording (`perfgate run`) of one revision.
type Entry struct {
	Schema int    `json:"schema"`
	Kind   string `json:"kind"` // KindEntry
	// ID identifies the entry across retries: adding an entry whose ID is
	// already in the history changes nothing.
	ID string `json:"id"`
	// Config names the history file: the perfgate.yml it measured.
	Config string `json:"config"`
	// Commit is the full SHA measured; Label what the run was called.
	Commit string    `json:"commit"`
	Label  string    `json:"label"`
	Time   time.Time `json:"time"`
	Engine string    `json:"engine"`
	// Verdict is the recording's: pass, or invalid when too few runs were
	// valid (such entries are kept but never enter a series).
	Verdict     string      `json:"verdict"`
	Runs        int         `json:"runs"` // valid runs summarised
	Fingerprint Fingerprint `json:"fingerprint"`
	// Metrics are per metric (the catalog's names) summaries over the
	// valid runs.
	Metrics map[string]Summary `json:"metrics"`
	// Artifact is where the raw profiles of this recording were uploaded.
	Artifact *Artifact `json:"artifact,omitempty"`
	// Paired is set when the recording was a duet against an earlier
	// commit (perfgate run --pair-with): Metrics are then head's side.
	Paired *Paired `json:"paired,omitempty"`
}

// Paired is what a paired recording measured against the commit it was
// paired with: per relative metric, the paired estimate and its interval.
// Both sides ran at once on the same CPUs, so the machine's drift between
// nights is not in them; trend chains them night to night.
type Paired struct {
	// With is the commit measured as base: the previous night's, or a
	// fixed reference such as the last release.
	With       string `json:"with"`
	Experiment string `json:"experiment"` // duet or sequential
	// Metrics are fractions (0.03 is +3%), by catalog name.
	Metrics map[string]PairedEstimate `json:"metrics"`
	// Functions are the largest per-request function changes of the CPU
	// and allocation profiles, so a step found from this night alone
	// names where it is.
	Functions []Function `json:"functions,omitempty"`
}

// PairedEstimate is one metric of a paired recording.
type PairedEstimate struct {
	Estimate float64    `json:"estimate"`
	CI       [2]float64 `json:"ci"`
	Level    float64    `json:"level"`
	Pairs    int        `json:"pairs"`
}

// Fingerprint is where an entry was measured. Machine is the part that
// makes CPU and latency figures comparable: entries with different
// Machine values are never put in one CPU or latency series.
type Fingerprint struct {
	Machine       string `json:"machine"` // MachineKey of the fields below
	CPUModel      string `json:"cpu_model"`
	CPUs          int    `json:"cpus"`
	Arch          string `json:"arch"`
	Target        string `json:"target"`
	Confinement   string `json:"confinement"`
	CPUMillicores int64  `json:"cpu_millicores"`
	MemoryBytes   int64  `json:"memory_bytes"`
	// Recorded, not part of Machine: they change weekly on hosted
	// runners, and a step they cause is caught by confirmation (a paired
	// gate of both commits on one machine shows no difference).
	Kernel      string `json:"kernel"`
	OS          string `json:"os"`
	GoVersion   string `json:"go_version"`
	RunnerImage string `json:"runner_image,omitempty"`
}

// Summary is one metric over one recording's valid runs.
type Summary struct {
	Unit   string  `json:"unit"`
	Median float64 `json:"median"`
	// Low and High are the smallest and largest run values; MAD is the
	// median absolute deviation from Median.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	MAD  float64 `json:"mad"`
	N    int     `json:"n"`
}

// Artifact is the CI artifact holding a recording's results directory.
type Artifact struct {
	Name   string `json:"name"`
	ID     int64  `json:"id,omitempty"`
	RunID  int64  `json:"run_id,omitempty"`
	RunURL string `json:"run_url,omitempty"`
}

// Confirmation is the outcome of checking one suspected step with paired
// gates, kept so a step is confirmed once, not every night.
type Confirmation struct {
	Schema int    `json:"schema"`
	Kind   string `json:"kind"` // KindConfirmation
	ID     string `json:"id"`   // metric, machine and the commit range
	Config string `json:"config"`
	Metric string `json:"metric"`
	// Machine is the series' Fingerprint.Machine ("" for metrics that do
	// not depend on the machine).
	Machine string `json:"machine"`
	// Before and After are the last commit before the suspected step and
	// the first after it.
	Before string    `json:"before"`
	After  string    `json:"after"`
	Time   time.Time `json:"time"`
	// Status is Confirmed, NotConfirmed or Failed.
	Status string `json:"status"`
	// Commit is the commit bisection named (After when the range is one
	// commit, or when the budget ran out: then Narrowed is the range left).
	Commit   string   `json:"commit,omitempty"`
	Narrowed []string `json:"narrowed,omitempty"`
	// Estimate and CI are the confirming gate's, as a fraction (relative
	// metrics) or in the metric's unit (absolute ones).
	Estimate float64    `json:"estimate"`
	CI       [2]float64 `json:"ci"`
	CILevel  float64    `json:"ci_level"`
	Outcome  string     `json:"outcome"` // the gate's: regression, improvement, unchanged, inconclusive
	Gates    int        `json:"gates"`
	Reason   string     `json:"reason,omitempty"`
	// Results is the results directory of the gate that last showed the
	// step (the commit's own gate after bisection), relative to the trend
	// output: its profiles open with go tool pprof -diff_base.
	Results string `json:"results,omitempty"`
	// Functions are that gate's largest function deltas.
	Functions []Function `json:"functions,omitempty"`
}

// Confirmation statuses.
const (
	Confirmed    = "confirmed"
	NotConfirmed = "not confirmed"
	Failed       = "failed"
)

// Function is one function delta of a confirming gate.
type Function struct {
	Profile string  `json:"profile"`
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	Delta   float64 `json:"delta"`
}
