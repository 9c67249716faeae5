package main

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/gate"
)

func configCheck(path string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(path)
	if err != nil {
		printError(stderr, err)
		return gate.ExitConfig
	}
	fmt.Fprintf(stdout, "%s: valid (%d pairs of %s at %g req/s, %d requests in the mix, target %s)\n",
		path, cfg.Pairs, cfg.Load.Duration, cfg.Load.Rate, len(cfg.Load.Requests), cfg.Target)
	return 0
}
