package session

import "testing"

// TestOptionErrorSaysWhatIsWrong: without the command's wording, an
// OptionError still names the option, the value and the problem.
func TestOptionErrorSaysWhatIsWrong(t *testing.T) {
	for _, tt := range []struct {
		err  OptionError
		want string
	}{
		{OptionError{OptionHead, "x", NotADirectory}, `head "x" is not a directory`},
		{OptionError{OptionOut, "results", NotResults}, `out "results" exists and is not a perfgate results directory`},
		{OptionError{OptionOut, "results", NoReport}, `out "results" has no report.json`},
		{OptionError{OptionLabel, "", Missing}, `label is required`},
		{OptionError{OptionLabel, "a b", NotALabel}, `label "a b" is not a valid label (1 to 100 letters, digits and . _ / -)`},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%#v says %q, want %q", tt.err, got, tt.want)
		}
	}
}
