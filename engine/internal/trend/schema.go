// Package trend reads a config's nightly history (package history), finds
// the steps in each metric's series (package changepoint), confirms each
// new step with paired gates of the commits on both sides, bisecting a
// range within a budget, and writes what it found: trend.json for
// programs (the Action's alarm), summary.md for the job summary, alarm.md
// for the sticky issue, and index.html with a chart per series.
//
// A suspected step is a guess made from runs on different nights, maybe on
// different machines; only a confirmed one raises the alarm.
package trend

import (
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Schema is the version of trend.json; its compatibility rules are
// report.json's (docs/trends.md).
const Schema = 1

// Alarm states: what the config's sticky issue should be after this trend.
const (
	// AlarmOpen: a confirmed regression is not reversed; open or update
	// the issue.
	AlarmOpen = "open"
	// AlarmResolved: every confirmed regression was reversed by a later
	// confirmed improvement; close the issue if it is open.
	AlarmResolved = "resolved"
	// AlarmNone: no confirmed regression was ever found.
	AlarmNone = "none"
)

// Trend is trend.json.
type Trend struct {
	Schema    int       `json:"schema"`
	Config    string    `json:"config"`
	Generated time.Time `json:"generated"`
	// Entries is how many history entries were read; Used how many
	// entered a series (valid recordings).
	Entries  int      `json:"entries"`
	Used     int      `json:"used"`
	Series   []Series `json:"series"`
	Alarm    Alarm    `json:"alarm"`
	Warnings []string `json:"warnings"`
	// Settings are the detection settings the steps were found with.
	Settings Settings `json:"settings"`
}

// Settings are the change-point detection's parameters.
type Settings struct {
	Alpha        float64 `json:"alpha"`
	MinMagnitude float64 `json:"min_magnitude"` // relative metrics, a fraction
	MinSegment   int     `json:"min_segment"`
	Confirm      bool    `json:"confirm"`
	Budget       int     `json:"budget"`
	// MaxGates is the most paired gates one run runs in all, confirming
	// and bisecting every step (0, in a trend.json older than it: no
	// limit).
	MaxGates int `json:"max_gates"`
	// Gate holds the config's thresholds, the smallest step of absolute
	// metrics (errors, goroutines, heap); it is here so that a job that
	// reads no perfgate.yml (mode publish) finds the same steps.
	Gate report.Gate `json:"gate"`
}

// Series is one metric's entries measured on one machine (or on any, for
// portable metrics), in time order.
type Series struct {
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
	// Machine is the entries' Fingerprint.Machine, "" for a portable
	// metric; MachineDescription says it in words.
	Machine            string `json:"machine"`
	MachineDescription string `json:"machine_description"`
	// Spread is how much the medians move from night to night: 1.4826 ×
	// the median absolute deviation of their logarithms (relative
	// metrics, about a fraction) or of the values (absolute ones). A step
	// well above it is found (docs/trends-detection.md).
	Spread float64 `json:"spread"`
	// Detection is how steps were searched: DetectMedians (change points
	// of the nightly medians), DetectPaired (each night's paired estimate
	// against the night before; the medians of a machine-dependent metric
	// are not searched then, their night-to-night drift is the machine's)
	// or both, for a portable metric.
	Detection string `json:"detection"`
	// Chain is the paired nights' estimates compounded, when the series
	// has any: how far the metric moved over them, step by step.
	Chain *Chain `json:"chain,omitempty"`
	// PairedSpread is how much the paired nights' estimates move: 1.4826 ×
	// the median absolute deviation of their logarithms; what Spread is
	// for the medians, with the machine's drift between nights taken out.
	PairedSpread float64 `json:"paired_spread,omitempty"`
	Points       []Point `json:"points"`
	Steps        []Step  `json:"steps"`
}

// How a series' steps were searched.
const (
	DetectMedians = "medians"
	DetectPaired  = "paired nights"
	DetectBoth    = "medians and paired nights"
)

// Chain is a series' paired nights compounded: the product of the nights'
// ratios since the first link, with an interval from their intervals
// (each night's error independent: slow creep shows as a chain whose
// interval leaves zero, though no single night did).
type Chain struct {
	From   string  `json:"from"` // the commit the first link was paired with
	Nights int     `json:"nights"`
	Change float64 `json:"change"` // a fraction
	// CI is at Level, from the nights' intervals as if each were normal.
	CI    [2]float64 `json:"ci"`
	Level float64    `json:"level"`
}

// Point is one entry's summary of the metric.
type Point struct {
	Commit string    `json:"commit"`
	Label  string    `json:"label"`
	Time   time.Time `json:"time"`
	Median float64   `json:"median"`
	Low    float64   `json:"low"`
	High   float64   `json:"high"`
	// Artifact is where the entry's raw profiles are, when recorded.
	Artifact *history.Artifact `json:"artifact,omitempty"`
	// Paired is the night's paired estimate against the point before it,
	// when the entry was paired with that point's commit (a link).
	Paired *history.PairedEstimate `json:"paired,omitempty"`
	// functions are the entry's paired function changes, for the
	// confirmation of a step found from this night.
	functions []history.Function
}

// Step is a change point of a series.
type Step struct {
	// Index is the first point after the step.
	Index int `json:"index"`
	// Before and After are the last commit before the step and the first
	// after it: the range a culprit is in.
	Before string `json:"before"`
	After  string `json:"after"`
	// BeforeLevel and AfterLevel are the medians of the segments either
	// side; Magnitude their change (a fraction for relative metrics).
	BeforeLevel float64 `json:"before_level"`
	AfterLevel  float64 `json:"after_level"`
	Magnitude   float64 `json:"magnitude"`
	P           float64 `json:"p"`
	// Paired is set when the step was found from one night's paired
	// estimate (its interval excludes no change and it is at least
	// min_magnitude): Magnitude is that estimate, P the interval's miss
	// rate (1 − its level), and the night's duet is the confirmation.
	Paired *history.PairedEstimate `json:"paired,omitempty"`
	// functions are that night's function changes.
	functions []history.Function
	// Direction is "regression" or "improvement" by the metric's sense.
	Direction string `json:"direction"`
	// Confirmation is the paired gates' finding, from this run or an
	// earlier one; nil when the step was not checked (no --confirm).
	Confirmation *history.Confirmation `json:"confirmation,omitempty"`
}

// Alarm is what the Action does with the config's sticky issue.
type Alarm struct {
	State string `json:"state"`
	Title string `json:"title"`
	// Open are the confirmed regressions no later confirmed improvement
	// reversed.
	Open []history.Confirmation `json:"open,omitempty"`
}
