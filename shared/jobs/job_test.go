package jobs

import "testing"

// TestFillDefaults: country and scrap_mode end inside their domains on any
// job, and a value already inside is kept.
func TestFillDefaults(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		country, mode         string
		wantCountry, wantMode string
	}{
		{"a job without scrape settings", "", "", "FRA", "fast"},
		{"a scrape's settings kept", "BEL", "ultra", "BEL", "ultra"},
		{"normal kept", "DEU", "normal", "DEU", "normal"},
		{"a country outside ISO alpha-3", "fr", "fast", "FRA", "fast"},
		{"a four-letter country", "FRAN", "", "FRA", "fast"},
		{"an unknown mode", "ESP", "turbo", "ESP", "fast"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := &Job{Country: tt.country, ScrapMode: tt.mode}
			j.fillDefaults()
			if j.Country != tt.wantCountry || j.ScrapMode != tt.wantMode {
				t.Errorf("got %q, %q; want %q, %q", j.Country, j.ScrapMode, tt.wantCountry, tt.wantMode)
			}
		})
	}
}
