package main

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

func configCheck(path string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(path)
	if err != nil {
		printError(stderr, err)
		return exitConfig
	}
	if err := verdict.CheckPlan(path, cfg); err != nil {
		fmt.Fprintf(stderr, "perfgate: %v\n", err)
		return exitConfig
	}
	rounds := fmt.Sprint(cfg.Pairs)
	if cfg.MaxPairs > cfg.Pairs {
		rounds = fmt.Sprintf("%d to %d", cfg.Pairs, cfg.MaxPairs)
	}
	fmt.Fprintf(stdout, "%s: valid (%s: %s rounds of %s at %g req/s each, %d requests in the mix, target %s)\n",
		path, cfg.Experiment, rounds, cfg.Load.Duration, cfg.Load.Rate, len(cfg.Load.Requests), cfg.Target)
	return 0
}
