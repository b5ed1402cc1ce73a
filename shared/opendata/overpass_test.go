package opendata_test

import (
	"testing"

	"github.com/prospectdata/svc/shared/opendata"
)

// TestElementPhone: the home market's numbers in their national format,
// others' in the international one; a national number read in the
// element's country (addr:country), else the home market's.
func TestElementPhone(t *testing.T) {
	for _, tt := range []struct {
		name string
		tags map[string]string
		want string
	}{
		{"French, national", map[string]string{"phone": "04 78 12 34 56"}, "04 78 12 34 56"},
		{"French, international", map[string]string{"phone": "+33478123456"}, "04 78 12 34 56"},
		{"contact:phone", map[string]string{"contact:phone": "+33 4 78 12 34 56;+33 4 78 12 34 57"}, "04 78 12 34 56"},
		{"Swiss, international", map[string]string{"phone": "+41 22 123 45 67"}, "+41 22 123 45 67"},
		{"Swiss, national in a Swiss element", map[string]string{"phone": "022 123 45 67", "addr:country": "CH"}, "+41 22 123 45 67"},
		{"Belgian, national in a Belgian element", map[string]string{"phone": "081 34 08 69", "addr:country": "be"}, "+32 81 34 08 69"},
		{"French in a Belgian element", map[string]string{"phone": "+33 4 78 12 34 56", "addr:country": "BE"}, "04 78 12 34 56"},
		{"country not a code: the home market's", map[string]string{"phone": "04 78 12 34 56", "addr:country": "France"}, "04 78 12 34 56"},
		{"Réunion is another region", map[string]string{"phone": "+262 262 12 34 56"}, "+262 262 12 34 56"},
		{"unreadable, as given", map[string]string{"phone": "12"}, "12"},
		{"none", map[string]string{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := opendata.Element{Type: "node", ID: 1, Tags: tt.tags}
			if got := e.Phone(); got != tt.want {
				t.Errorf("Phone() = %q, want %q", got, tt.want)
			}
		})
	}
}
