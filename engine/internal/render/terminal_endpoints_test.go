package render

import (
	"bytes"
	"testing"
)

func TestPrintEndpoints(t *testing.T) {
	var b bytes.Buffer
	printEndpoints(&b, endpointsReport().Endpoints)
	golden(t, "endpoints.txt", b.String())
}
