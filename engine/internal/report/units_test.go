package report

import (
	"encoding"
	"testing"
	"time"
)

// TestUnitsReadWhatTheyWrite: a report's config reads back exactly what
// the engine wrote.
func TestUnitsReadWhatTheyWrite(t *testing.T) {
	for _, tc := range []struct {
		value encoding.TextMarshaler
		fresh encoding.TextUnmarshaler
		text  string
	}{
		{CPU(500), new(CPU), "500m"},
		{CPU(2000), new(CPU), "2"},
		{Bytes(256 << 20), new(Bytes), "256Mi"},
		{Bytes(100e6), new(Bytes), "100M"},
		{Bytes(1000 + 1), new(Bytes), "1001"},
		{Duration(90 * time.Second), new(Duration), "1m30s"},
		{Duration(0), new(Duration), "0s"},
		{Fraction(0.015), new(Fraction), "1.5%"},
		{Fraction(0.001), new(Fraction), "0.1%"},
	} {
		text, err := tc.value.MarshalText()
		if err != nil || string(text) != tc.text {
			t.Errorf("%#v written as %q, %v; want %q", tc.value, text, err, tc.text)
			continue
		}
		if err := tc.fresh.UnmarshalText(text); err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if back, _ := tc.fresh.(encoding.TextMarshaler).MarshalText(); string(back) != tc.text {
			t.Errorf("%q read back as %q", tc.text, back)
		}
	}
	var cpu CPU
	if err := cpu.UnmarshalText([]byte("fast")); err == nil || err.Error() != `"fast" is not valid; want `+CPUWant {
		t.Errorf("reading cpu \"fast\": %v", err)
	}
}
