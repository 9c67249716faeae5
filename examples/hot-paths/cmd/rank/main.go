// Command rank serves the JSON, map and sort hot path of package rank.
package main

import (
	"example.com/perfgate-hot-paths/internal/rank"
	"example.com/perfgate-hot-paths/internal/serve"
)

func main() { serve.Main(rank.Handler()) }
