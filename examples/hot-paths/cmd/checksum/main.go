// Command checksum serves the tight byte loops of package checksum.
package main

import (
	"example.com/perfgate-hot-paths/internal/checksum"
	"example.com/perfgate-hot-paths/internal/serve"
)

func main() { serve.Main(checksum.Handler()) }
