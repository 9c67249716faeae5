package report

// The values of fail_on (perfgate gate --fail-on, the Action's fail-on).
const (
	FailOnRegression   = "regression"
	FailOnInconclusive = "inconclusive"
	FailOnNever        = "never"
)

// FailOnValues are the accepted --fail-on values, the default first.
var FailOnValues = []string{FailOnRegression, FailOnInconclusive, FailOnNever}

// FailsCheck says whether a verdict fails the check under failOn, the
// rule the Action applies (src/step-failure.ts): an error always fails; a
// regression and an invalid measurement fail unless failOn is never; an
// inconclusive gate fails only under inconclusive. known is false when
// failOn is empty (a report written without --fail-on), and then fails
// means nothing. An accepted regression passes whatever failOn says; the
// caller knows whether it was accepted.
func FailsCheck(verdict, failOn string) (fails, known bool) {
	if failOn == "" {
		return false, false
	}
	switch verdict {
	case Error:
		return true, true
	case Regression, Invalid:
		return failOn != FailOnNever, true
	case Inconclusive:
		return failOn == FailOnInconclusive, true
	}
	return false, true
}
