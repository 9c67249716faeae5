package capture

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/google/pprof/profile"
)

// maxInflatedProfileBytes bounds a profile once decompressed. A service's
// profile (or a profile file in results from elsewhere) is untrusted, and
// gzip packs repeated bytes about a thousandfold: profile.Parse inflates
// without a limit, so a 256 MiB body could ask for hundreds of GiB. Real
// profiles inflate to a few MiB. A variable so tests can lower it.
var maxInflatedProfileBytes int64 = 256 << 20

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

// parseProfile parses a pprof profile, gzipped or not, decompressing it
// itself so the inflated size is bounded by maxInflatedProfileBytes.
func parseProfile(data []byte) (*profile.Profile, error) {
	if bytes.HasPrefix(data, gzipMagic) {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decompress: %w", err)
		}
		raw, err := io.ReadAll(io.LimitReader(gz, maxInflatedProfileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("decompress: %w", err)
		}
		if int64(len(raw)) > maxInflatedProfileBytes {
			return nil, fmt.Errorf("the %d bytes of gzip inflate to more than %d MiB, the most perfgate decompresses: a gzip bomb, or a profile far larger than a service's", len(data), maxInflatedProfileBytes>>20)
		}
		// profile.Parse would inflate a second layer without a limit.
		if bytes.HasPrefix(raw, gzipMagic) {
			return nil, fmt.Errorf("gzip inside gzip: a pprof profile is compressed once")
		}
		data = raw
	}
	return profile.ParseData(data)
}
