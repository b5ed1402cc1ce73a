package scrape

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/pricing"
)

func i64(v int64) *int64 { return &v }
func yes(v bool) *bool   { return &v }

func TestCleanDefaults(t *testing.T) {
	s, err := Clean(Request{Queries: []string{"  plombier ", "Plombier", "boulangerie  artisanale"}, Zones: []string{"Lyon", " lyon "}}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Queries: []string{"plombier", "boulangerie artisanale"}, Country: "FRA", Zones: []string{"Lyon"},
		Mode: pricing.Fast, ExcludeForeignPhones: true,
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Clean = %+v\nwant  %+v", s, want)
	}
}

func TestCleanSettings(t *testing.T) {
	s, err := Clean(Request{
		Queries: []string{"q"}, Zones: []string{"z"}, Country: "deu", ScrapMode: "ULTRA", StopAt: i64(500),
		MaxPerPhone: 1, ExcludeForeignPhones: yes(false), ExtraColumns: []string{"region", "GPS", "colour"}, IncludeReviews: true,
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Country != "DEU" || s.Mode != pricing.Ultra || s.StopAt != 500 || s.MaxPerPhone != 1 || s.ExcludeForeignPhones || !s.IncludeReviews {
		t.Errorf("settings %+v", s)
	}
	if !reflect.DeepEqual(s.ExtraColumns, []string{"gps", "region"}) {
		t.Errorf("extra columns %q: unknown values are ignored, known ones kept in a stable order", s.ExtraColumns)
	}
}

func TestCleanRefuses(t *testing.T) {
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strings.Repeat("x", i+1)
		}
		return out
	}
	tests := []struct {
		name   string
		r      Request
		strict bool
		fields []string
	}{
		{"no queries for a job", Request{Zones: []string{"z"}}, true, []string{"queries"}},
		{"no zones for a job", Request{Queries: []string{"q"}}, true, []string{"zones"}},
		{"empty lists for an estimate", Request{}, false, nil},
		{"21 queries", Request{Queries: many(21), Zones: []string{"z"}}, false, []string{"queries"}},
		{"51 zones", Request{Queries: []string{"q"}, Zones: many(51)}, false, []string{"zones"}},
		{"query of 201 characters", Request{Queries: []string{strings.Repeat("é", 201)}, Zones: []string{"z"}}, false, []string{"queries[0]"}},
		{"blank query", Request{Queries: []string{"q", "   "}, Zones: []string{"z"}}, false, []string{"queries[1]"}},
		{"bad country", Request{Queries: []string{"q"}, Zones: []string{"z"}, Country: "France"}, false, []string{"country"}},
		{"alpha-2 country", Request{Queries: []string{"q"}, Zones: []string{"z"}, Country: "FR"}, false, []string{"country"}},
		{"unknown mode", Request{Queries: []string{"q"}, Zones: []string{"z"}, ScrapMode: "turbo"}, false, []string{"scrap_mode"}},
		{"stop_at 0", Request{Queries: []string{"q"}, Zones: []string{"z"}, StopAt: i64(0)}, false, []string{"stop_at"}},
		{"stop_at too high", Request{Queries: []string{"q"}, Zones: []string{"z"}, StopAt: i64(2_000_001)}, false, []string{"stop_at"}},
		{"max_per_phone 11", Request{Queries: []string{"q"}, Zones: []string{"z"}, MaxPerPhone: 11}, false, []string{"max_per_phone"}},
		{"several at once", Request{Queries: []string{""}, Zones: []string{"z"}, ScrapMode: "x", MaxPerPhone: -1}, false, []string{"queries[0]", "scrap_mode", "max_per_phone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Clean(tt.r, tt.strict)
			var got []string
			var e *apperr.Error
			if errors.As(err, &e) {
				if e.Code != apperr.Unprocessable {
					t.Fatalf("code %s, want 422", e.Code)
				}
				for _, f := range e.Fields {
					got = append(got, f.Field)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.fields) {
				t.Errorf("fields %q, want %q", got, tt.fields)
			}
		})
	}
}
