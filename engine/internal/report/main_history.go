package report

// MainHistory is where main stands, from its nightly history, shown beside
// a pull request's gate: each gating metric's latest nightly medians and
// how small a change this machine's recorded spread lets a gate resolve.
// Absent when the gate was given no history.
type MainHistory struct {
	// Config is the history file the entries come from; Entries how many
	// valid recordings it holds.
	Config  string `json:"config"`
	Entries int    `json:"entries"`
	// Metrics are in the catalog's order.
	Metrics []MainMetric `json:"metrics"`
}

// MainMetric is one metric's recent nightly medians on main.
type MainMetric struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Medians are the latest nightly medians (at most 30), oldest first,
	// and Commits the commits they measured.
	Medians []float64 `json:"medians"`
	Commits []string  `json:"commits"`
	// SameMachine is true when the medians were measured on this gate's
	// machine (fingerprint), false when on another one: CPU and latency
	// are then only a rough guide.
	SameMachine bool `json:"same_machine"`
	// RunSpread is the median, over those nightly recordings, of their
	// runs' relative spread (1.4826 × MAD / median): the run-to-run noise
	// of one revision alone, an A/A spread. 0 when unknown.
	RunSpread float64 `json:"run_spread,omitempty"`
	// Resolvable is the smallest relative change a gate of max_pairs
	// pairs resolves at that spread with 90% power, at the gate's alpha;
	// 0 when unknown. Pairs run sequentially; a duet's pairs usually vary
	// less, so it errs high.
	Resolvable float64 `json:"resolvable,omitempty"`
}
