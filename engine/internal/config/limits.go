package config

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// The limits on what a perfgate.yml may hold. The file comes from the pull
// request under test, so it must not be able to make perfgate read, keep or
// send without bound: a real config is a page of YAML with small request
// bodies, and every limit is far above that.
const (
	// MaxFileBytes is the largest perfgate.yml perfgate reads.
	MaxFileBytes = 1 << 20
	// MaxBodyBytes is the largest body one load request may carry.
	MaxBodyBytes = 1 << 20
	// MaxBodiesBytes bounds the request bodies together: YAML aliases let
	// a small file repeat one large body in many requests, and the load
	// generator keeps a copy of each.
	MaxBodiesBytes = 16 << 20
)

// readFile reads a perfgate.yml of at most MaxFileBytes; a larger one is a
// *Error naming the file, its size and the limit, read no further. Under
// sudo it opens the file as the user who ran sudo: the pull request names
// it (or links it somewhere), root would read anything, and a line of
// what it read comes back in the error of a file that does not parse.
func readFile(path string) ([]byte, error) {
	f, err := privilege.OpenAsInvoker(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > MaxFileBytes {
		return nil, fileTooLarge(path, info.Size())
	}
	// Not regular (a pipe), or growing while read: the limit still holds.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fileTooLarge(path, -1)
	}
	return data, nil
}

// fileTooLarge is the error for a perfgate.yml over MaxFileBytes; size is
// -1 when only "more than the limit" is known.
func fileTooLarge(path string, size int64) *Error {
	problem := "is more than " + sizeText(MaxFileBytes)
	if size >= 0 {
		problem = "is " + sizeText(size) + ", more than " + sizeText(MaxFileBytes)
	}
	return &Error{
		File:    path,
		Problem: problem + ", the most a perfgate.yml may be",
		Want:    "a perfgate.yml of at most " + sizeText(MaxFileBytes) + "; keep large data out of it (the service can read its own files)",
	}
}

// validateBodies checks each request body against MaxBodyBytes and all of
// them together against MaxBodiesBytes.
func (d *diagnostics) validateBodies(requests []Request) {
	total := 0
	for i, r := range requests {
		total += len(r.Body)
		if len(r.Body) > MaxBodyBytes {
			d.fail(fmt.Sprintf("load.requests[%d].body", i), r.Body, Error{
				Problem: "is " + sizeText(int64(len(r.Body))) + ", more than the " + sizeText(MaxBodyBytes) + " a request body may be",
				Want:    "a body of at most " + sizeText(MaxBodyBytes) + "; a smaller request of the same kind measures the same code per request",
			})
		}
	}
	if total > MaxBodiesBytes {
		d.fail("load.requests", "", Error{
			Problem: "carry " + sizeText(int64(total)) + " of bodies together, more than " + sizeText(MaxBodiesBytes),
			Want:    "request bodies of at most " + sizeText(MaxBodiesBytes) + " together; fewer requests that repeat a large body (YAML aliases count each time)",
		})
	}
}

// sizeText shows a byte count for a person: "2.5 MiB (2621440 bytes)", or
// plain bytes when small.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
