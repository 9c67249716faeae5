// Command route serves the router and JSON-scanning hot path of package
// route.
package main

import (
	"example.com/perfgate-hot-paths/internal/route"
	"example.com/perfgate-hot-paths/internal/serve"
)

// storeSeed makes the same store in every build.
const storeSeed = 42

func main() { serve.Main(route.Handler(storeSeed)) }
