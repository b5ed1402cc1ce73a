package modules

import (
	"errors"
	"testing"

	"github.com/prospectdata/svc/shared/apperr"
)

// TestDeclarations: what the rest of the service reads from a module's
// declaration holds together: option names unique across modules, each
// default a value the option accepts, a price factor only on a value the
// option can take, a node for every module of items.
func TestDeclarations(t *testing.T) {
	seen := map[string]string{}
	for _, e := range Entries() {
		if e.Items() && e.Node == nil {
			t.Errorf("%s runs over items but has no pipeline node", e.Slug)
		}
		if !e.Items() && len(e.Options) > 0 {
			t.Errorf("%s has options but no item price", e.Slug)
		}
		for _, o := range e.Options {
			if other, ok := seen[o.Name]; ok {
				t.Errorf("option %s of %s and %s", o.Name, e.Slug, other)
			}
			seen[o.Name] = e.Slug
			if _, err := o.value(json(o.Default)); err != nil {
				t.Errorf("%s.%s: default %v refused: %v", e.Slug, o.Name, o.Default, err)
			}
			for v := range o.Factor {
				if _, err := o.value(parse(o.Kind, v)); err != nil {
					t.Errorf("%s.%s: factor on %q, a value it refuses", e.Slug, o.Name, v)
				}
			}
		}
	}
}

// json is a Go value as encoding/json decodes it into an any.
func json(v any) any {
	if n, ok := v.(int); ok {
		return float64(n)
	}
	return v
}

// parse is a factor's key as a decoded value.
func parse(k Kind, s string) any {
	if k == Bool {
		return s == "true"
	}
	return s
}

// TestRead: a module's settings, checked against its options, defaults
// filled; another module's option, a value out of range or of the wrong
// type is a 422 naming the field with the service's messages.
func TestRead(t *testing.T) {
	tests := []struct {
		name   string
		module string
		sent   map[string]any
		want   Values
		field  string
		en     string
	}{
		{"defaults", Emails, nil, Values{"mode": "normal"}, "", ""},
		{"no options at all", Socials, nil, Values{}, "", ""},
		{"a value", Emails, map[string]any{"mode": "deep"}, Values{"mode": "deep"}, "", ""},
		{"null is not set", Reviews, map[string]any{"max_reviews": nil}, Values{"max_reviews": 10, "period_months": 0}, "", ""},
		{"an int", Reviews, map[string]any{"max_reviews": 100.0}, Values{"max_reviews": 100, "period_months": 0}, "", ""},
		{"a name no module has", Socials, map[string]any{"colour": "blue"}, Values{}, "", ""},
		{"another module's option", Socials, map[string]any{"mode": "deep"}, nil, "mode", "mode only applies to the emails module."},
		{"not among the values", Emails, map[string]any{"mode": "turbo"}, nil, "mode", "mode is normal or deep."},
		{"the only value", PhoneInfo, map[string]any{"live_mode": "live"}, nil, "live_mode", "live_mode is cache_only."},
		{"below the range", Reviews, map[string]any{"max_reviews": 0.0}, nil, "max_reviews", "max_reviews is 1 to 100."},
		{"zero means something", Reviews, map[string]any{"period_months": 121.0}, nil, "period_months", "period_months is 0 (unlimited) to 120."},
		{"not an integer", Reviews, map[string]any{"max_reviews": 2.5}, nil, "max_reviews", "Invalid type (expected integer)"},
		{"not a bool", BrandAssets, map[string]any{"capture_screenshot": "yes"}, nil, "capture_screenshot", "Invalid type (expected boolean)"},
		{"not a string", Emails, map[string]any{"mode": true}, nil, "mode", "Invalid type (expected string)"},
		{"the type before the owner", Socials, map[string]any{"mode": 1.0}, nil, "mode", "Invalid type (expected string)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := Lookup(tt.module)
			got, err := e.Read(tt.sent)
			if tt.field == "" {
				if err != nil || len(got) != len(tt.want) {
					t.Fatalf("%v, %v; want %v", got, err, tt.want)
				}
				for k, v := range tt.want {
					if got[k] != v {
						t.Fatalf("%s = %v, want %v", k, got[k], v)
					}
				}
				return
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.Unprocessable || len(ae.Fields) != 1 || ae.Fields[0].Field != tt.field || ae.Fields[0].EN != tt.en {
				t.Fatalf("err %#v, want 422 on %s: %q", err, tt.field, tt.en)
			}
		})
	}
}

// TestFactor: a job's price multiplier is the product of its options'.
func TestFactor(t *testing.T) {
	emails, _ := Lookup(Emails)
	brand, _ := Lookup(BrandAssets)
	for _, tt := range []struct {
		e    Entry
		v    Values
		want float64
	}{
		{emails, Values{"mode": "normal"}, 1},
		{emails, Values{"mode": "deep"}, 5},
		{brand, Values{"capture_screenshot": true}, 5},
		{brand, Values{"capture_screenshot": false}, 1},
		{brand, nil, 1},
	} {
		if got := tt.e.Factor(tt.v); got != tt.want {
			t.Errorf("%s %v: %v, want %v", tt.e.Slug, tt.v, got, tt.want)
		}
	}
}
