package session

import "fmt"

// ConfigError is bad input: an option, perfgate.yml, a base that does not
// resolve. The verdict says "configuration error", and the command exits
// with its usage code.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// configErrorf builds a ConfigError from a message that names the field,
// the value and the fix.
func configErrorf(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}

// Option is an option of GateOptions, RunOptions or RecomputeOptions whose
// value gate checks before it writes anything.
type Option string

const (
	OptionHead  Option = "head"  // GateOptions.Head
	OptionSrc   Option = "src"   // RunOptions.Src
	OptionOut   Option = "out"   // the results directory of every command
	OptionLabel Option = "label" // RunOptions.Label
)

// Problem is what is wrong with an option's value.
type Problem int

const (
	// NotADirectory: a tree to build (head, src) that is not a directory.
	NotADirectory Problem = iota
	// NotResults: a results directory that exists and holds files but no
	// report.json, so replacing it could wipe files that are not perfgate's.
	NotResults
	// NoReport: compare's results directory has no report.json to read.
	NoReport
	// Missing: a required option (the label) is empty.
	Missing
	// NotALabel: a label outside config.LabelPattern's alphabet or length.
	NotALabel
)

var problems = map[Problem]string{
	NotADirectory: "is not a directory",
	NotResults:    "exists and is not a perfgate results directory",
	NoReport:      "has no report.json",
	Missing:       "is required",
	NotALabel:     "is not a valid label (1 to 100 letters, digits and . _ / -)",
}

// OptionError is an option whose value cannot be used, found before
// anything is built or written. It says which option, its value and the
// problem, and leaves the words to the caller: the perfgate command names
// the option as its flag and says what to pass instead.
type OptionError struct {
	Option  Option
	Value   string
	Problem Problem
}

func (e *OptionError) Error() string {
	if e.Problem == Missing {
		return fmt.Sprintf("%s %s", e.Option, problems[e.Problem])
	}
	return fmt.Sprintf("%s %q %s", e.Option, e.Value, problems[e.Problem])
}

// optionError is an OptionError as the ConfigError it is.
func optionError(option Option, value string, problem Problem) error {
	return &ConfigError{Err: &OptionError{Option: option, Value: value, Problem: problem}}
}
