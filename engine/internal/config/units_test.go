package config

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseCPU(t *testing.T) {
	tests := []struct {
		in        string
		millis    CPU
		canonical string
	}{
		{"1", 1000, "1"},
		{"2", 2000, "2"},
		{"0.5", 500, "500m"},
		{".25", 250, "250m"},
		{"1.5", 1500, "1500m"},
		{"500m", 500, "500m"},
		{"2000m", 2000, "2"},
		{"1m", 1, "1m"},
		{" 4 ", 4000, "4"},
		{"0.001", 1, "1m"},
		{"0", 0, "0"},
		{"-1", -1000, "-1"},
	}
	for _, tt := range tests {
		got, err := ParseCPU(tt.in)
		if err != nil || got != tt.millis || got.String() != tt.canonical {
			t.Errorf("ParseCPU(%q) = %d (%s), %v; want %d (%s)", tt.in, got, got, err, tt.millis, tt.canonical)
		}
	}
	if c := CPU(500); c.Cores() != 0.5 {
		t.Errorf("CPU(500).Cores() = %v, want 0.5", c.Cores())
	}
	for _, in := range []string{"", "fast", "1 core", "2c", "500M", "0.5m", "0.0001", "1e3", "1/2", "1.", "0x10", "99999999999999999999"} {
		if got, err := ParseCPU(in); err == nil {
			t.Errorf("ParseCPU(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in        string
		bytes     Bytes
		canonical string
	}{
		{"256Mi", 256 << 20, "256Mi"},
		{"1Gi", 1 << 30, "1Gi"},
		{"1024Mi", 1 << 30, "1Gi"},
		{"512Ki", 512 << 10, "512Ki"},
		{"1.5Gi", 3 << 29, "1536Mi"},
		{"100M", 100e6, "100M"},
		{"1G", 1e9, "1G"},
		{"5k", 5000, "5k"},
		{"2Ti", 2 << 40, "2Ti"},
		{"1048576", 1 << 20, "1Mi"},
		{"1000", 1000, "1k"},
		{"1023", 1023, "1023"},
		{"0", 0, "0"},
		{"-1Gi", -(1 << 30), "-1Gi"},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if err != nil || got != tt.bytes || got.String() != tt.canonical {
			t.Errorf("ParseBytes(%q) = %d (%s), %v; want %d (%s)", tt.in, got, got, err, tt.bytes, tt.canonical)
		}
	}
	for _, in := range []string{"", "12XB", "256MB", "1GB", "512K", "1 Gi", "0.5", "1.5Ki1", "lots", "1e9", "8Ei", "mi"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %v, want an error", in, got)
		}
	}
	var e *Error
	if _, err := ParseBytes("1GB"); !errors.As(err, &e) || e.Hint != `did you mean "1Gi"?` {
		t.Errorf(`ParseBytes("1GB") = %v, want a hint for 1Gi`, err)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in        string
		d         time.Duration
		canonical string
	}{
		{"3s", 3 * time.Second, "3s"},
		{"500ms", 500 * time.Millisecond, "500ms"},
		{"1m30s", 90 * time.Second, "1m30s"},
		{"90s", 90 * time.Second, "1m30s"},
		{"1.5s", 1500 * time.Millisecond, "1.5s"},
		{"0", 0, "0s"},
		{"-2s", -2 * time.Second, "-2s"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if err != nil || got.Std() != tt.d || got.String() != tt.canonical {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.canonical)
		}
	}
	for _, in := range []string{"", "3 seconds", "3", "3sec", "1d", "fast"} {
		if got, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseFraction(t *testing.T) {
	tests := []struct {
		in        string
		f         Fraction
		canonical string
	}{
		{"10%", 0.1, "10%"},
		{"0.1", 0.1, "10%"},
		{"2%", 0.02, "2%"},
		{"3%", 0.03, "3%"},
		{"0.1%", 0.001, "0.1%"},
		{"2.5%", 0.025, "2.5%"},
		{"99%", 0.99, "99%"},
		{"100%", 1, "100%"},
		{"7 %", 0.07, "7%"},
		{"0.0001%", 0.000001, "0.0001%"},
		{"1e-3", 0.001, "0.1%"},
		{"0", 0, "0%"},
		{"150%", 1.5, "150%"},
		{"-5%", -0.05, "-5%"},
	}
	for _, tt := range tests {
		got, err := ParseFraction(tt.in)
		if err != nil || got != tt.f || got.String() != tt.canonical {
			t.Errorf("ParseFraction(%q) = %v (%s), %v; want %v (%s)", tt.in, float64(got), got, err, float64(tt.f), tt.canonical)
		}
	}
	for _, in := range []string{"", "ten", "10 percent", "%", "10%%", "1e-2%", "NaN", "Inf", "1e999"} {
		if got, err := ParseFraction(in); err == nil {
			t.Errorf("ParseFraction(%q) = %v, want an error", in, got)
		}
	}
	// String is exact: it parses back to the same float64 for any value.
	for _, v := range []float64{0.07, 1.0 / 3, 0.123456789, 1e-9, 12345.678, math.SmallestNonzeroFloat64, 0.30000000000000004} {
		f := Fraction(v)
		back, err := ParseFraction(f.String())
		if err != nil || back != f {
			t.Errorf("ParseFraction(%q) = %v, %v; want %v", f.String(), float64(back), err, v)
		}
	}
}

// TestUnitsJSON checks that units marshal as their canonical text and read
// back from any accepted form.
func TestUnitsJSON(t *testing.T) {
	type units struct {
		CPU       CPU      `json:"cpu"`
		Memory    Bytes    `json:"memory"`
		Window    Duration `json:"window"`
		Threshold Fraction `json:"threshold"`
	}
	in := units{CPU: 500, Memory: 256 << 20, Window: Duration(90 * time.Second), Threshold: 0.001}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"cpu":"500m","memory":"256Mi","window":"1m30s","threshold":"0.1%"}`; string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
	var out units
	if err := json.Unmarshal([]byte(`{"cpu":"0.5","memory":"268435456","window":"90s","threshold":"0.001"}`), &out); err != nil || out != in {
		t.Errorf("json.Unmarshal = %+v, %v; want %+v", out, err, in)
	}
	err = json.Unmarshal([]byte(`{"cpu":"fast"}`), &out)
	if err == nil || !strings.Contains(err.Error(), `"fast" is not valid; want cores`) {
		t.Errorf("json.Unmarshal(bad cpu) = %v, want the unit's message", err)
	}
}
