package pricing

import (
	"math"
	"testing"
)

func TestSubdivision(t *testing.T) {
	// (4·0.15)^d summed: 1 + 0.6 = 1.6; + 0.36 = 1.96; + 0.216 = 2.176.
	tests := []struct {
		mode  Mode
		depth int
		want  float64
	}{
		{Fast, 1, 1.6},
		{Normal, 2, 1.96},
		{Ultra, 3, 2.176},
	}
	for _, tt := range tests {
		if d := tt.mode.MaxDepth(); d != tt.depth {
			t.Errorf("%s: depth %d, want %d", tt.mode, d, tt.depth)
		}
		if f := tt.mode.Subdivision(); math.Abs(f-tt.want) > 1e-9 {
			t.Errorf("%s: subdivision %v, want %v", tt.mode, f, tt.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"fast": Fast, " Normal ": Normal, "ULTRA": Ultra} {
		if m, ok := ParseMode(in); !ok || m != want {
			t.Errorf("ParseMode(%q) = %q %v", in, m, ok)
		}
	}
	for _, in := range []string{"", "turbo", "fast!"} {
		if _, ok := ParseMode(in); ok {
			t.Errorf("ParseMode(%q) accepted", in)
		}
	}
}

func TestCompute(t *testing.T) {
	tests := []struct {
		name     string
		p        Params
		requests int
		ef       float64
		duration int
	}{
		{"nothing to scrape", Params{Tiles: 0, Queries: 2, Mode: Fast}, 0, 0, 0},
		{"fast", Params{Tiles: 100, Queries: 2, Mode: Fast}, 200, 320, 5 + 16},
		{"ultra", Params{Tiles: 100, Queries: 2, Mode: Ultra}, 200, 435.2, 5 + 22},
		{"reviews add a request per place found", Params{Tiles: 100, Queries: 2, Mode: Fast, IncludeReviews: true}, 200, 2880, 5 + 16},
		// 320 searches would find 2,560 places; stopping at 256 is a tenth.
		{"stop_at reduces in proportion", Params{Tiles: 100, Queries: 2, Mode: Fast, StopAt: 256}, 200, 32, 5 + 2},
		{"stop_at above the expected count changes nothing", Params{Tiles: 100, Queries: 2, Mode: Fast, StopAt: 1_000_000}, 200, 320, 5 + 16},
		{"country factor", Params{Tiles: 10, Queries: 1, Mode: Fast, CountryFactor: 2}, 10, 32, 5 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Compute(tt.p)
			if e.Requests != tt.requests || math.Abs(e.EF-tt.ef) > 1e-9 || e.DurationSeconds != tt.duration {
				t.Errorf("Compute = %+v, want requests %d, EF %v, duration %d", e, tt.requests, tt.ef, tt.duration)
			}
		})
	}
}

func TestFormatEF(t *testing.T) {
	for ef, want := range map[float64]string{12: "12", 12.5: "12.5", 0.333: "0.33", 100000: "100000"} {
		if got := FormatEF(ef); got != want {
			t.Errorf("FormatEF(%v) = %q, want %q", ef, got, want)
		}
	}
}

func TestLowPriority(t *testing.T) {
	for _, c := range []struct{ ef, want float64 }{
		{0, 0},
		{10, 7},
		{278.4, 194.88},
		{0.01, 0.01}, // 0.007 rounds to the cent
		{1.23, 0.86}, // 0.861
	} {
		if got := LowPriority(c.ef); got != c.want {
			t.Errorf("LowPriority(%v) = %v, want %v", c.ef, got, c.want)
		}
	}
}
