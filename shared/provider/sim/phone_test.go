package sim_test

import (
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"

	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
)

// TestPhoneMix: over the restaurants of a French department, the shares
// of missing, foreign and shared numbers are about as designed (foreign
// numbers only in a department on the border), the national numbers
// have the region's area digits, and libphonenumber finds every number
// valid.
func TestPhoneMix(t *testing.T) {
	w := newWorld(t, sim.Options{})
	tests := []struct {
		department, area string
		foreign          [2]float64 // the share's bounds among the department's own places
	}{
		{"69", "04", [2]float64{0, 0}}, {"75", "01", [2]float64{0, 0}}, {"35", "02", [2]float64{0, 0}},
		{"67", "03", [2]float64{0.05, 0.11}}, {"33", "05", [2]float64{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.department, func(t *testing.T) {
			var n, own, missing, foreign, mobile, national, wrongArea int
			uses := map[string]int{}
			for _, p := range truth(t, w, "restaurant", department(t, tt.department)) {
				if !strings.HasPrefix(p.ID, "sim:fra-") {
					continue // a neighbouring country's place
				}
				n++
				if inDepartment(p.Address, tt.department) {
					own++
				}
				switch {
				case p.Phone == "":
					missing++
					continue
				case strings.HasPrefix(p.Phone, "+"):
					if inDepartment(p.Address, tt.department) {
						foreign++
					}
				case strings.HasPrefix(p.Phone, "06") || strings.HasPrefix(p.Phone, "07"):
					mobile++
				default:
					national++
					// The department's box holds communes of its
					// neighbours: only its own are checked.
					if inDepartment(p.Address, tt.department) && !strings.HasPrefix(p.Phone, tt.area) {
						wrongArea++
					}
				}
				uses[p.Phone]++
				num, err := phonenumbers.Parse(p.Phone, "FR")
				if err != nil {
					t.Errorf("%s: phone %q: %v", p.ID, p.Phone, err)
					continue
				}
				if !phonenumbers.IsValidNumber(num) && !overseas(p.Phone) {
					t.Errorf("%s: phone %q is not valid", p.ID, p.Phone)
				}
			}
			shared := 0
			for _, c := range uses {
				if c > 1 {
					shared += c
				}
			}
			share := func(k int) float64 { return float64(k) / float64(n) }
			foreignShare := float64(foreign) / float64(max(own, 1))
			t.Logf("%d places: %.1f%% missing, %.1f%% foreign (of the department's own), %.1f%% mobile, %.1f%% on a shared line",
				n, 100*share(missing), 100*foreignShare, 100*share(mobile), 100*share(shared))
			checks := []struct {
				what     string
				got      float64
				low, top float64
			}{
				{"missing", share(missing), 0.06, 0.10},
				{"foreign", foreignShare, tt.foreign[0], tt.foreign[1]},
				{"mobile", share(mobile), 0.08, 0.20},
				{"shared", share(shared), 0.03, 0.12},
			}
			for _, c := range checks {
				if c.got < c.low || c.got > c.top {
					t.Errorf("%s: %.1f%%, want %.1f%% to %.1f%%", c.what, 100*c.got, 100*c.low, 100*c.top)
				}
			}
			if wrongArea > 0 {
				t.Errorf("%d fixed lines of %d lack the area digits %s", wrongArea, national, tt.area)
			}
		})
	}
}

// inDepartment tells whether a French address has a postal code of the
// department.
func inDepartment(address, department string) bool {
	return strings.Contains(address, ", "+department)
}

// overseas tells the numbers of the overseas departments, which the
// departments' bounding boxes do not reach but libphonenumber validates
// in their own regions.
func overseas(phone string) bool {
	for _, p := range []string{"0590", "0594", "0596", "0262", "0269"} {
		if strings.HasPrefix(phone, p) {
			return true
		}
	}
	return false
}

// TestForeignPlacesPhones: places abroad have their country's numbers.
func TestForeignPlacesPhones(t *testing.T) {
	w := newWorld(t, sim.Options{})
	tests := []struct {
		city    string
		country string
		lon     float64
		lat     float64
		prefix  string
		region  string
	}{
		{"Berlin", "deu", 13.405, 52.52, "+49 ", "DE"},
		{"Bruxelles", "bel", 4.3517, 50.8503, "+32 ", "BE"},
		{"Genève", "che", 6.1432, 46.2044, "+41 ", "CH"},
		{"Madrid", "esp", -3.7038, 40.4168, "+34 ", "ES"},
		{"New York", "usa", -73.9857, 40.7484, "+1 ", "US"},
	}
	for _, tt := range tests {
		t.Run(tt.city, func(t *testing.T) {
			var ps []provider.Place
			for _, p := range truth(t, w, "restaurant", around(tt.lon, tt.lat, 0.05)) {
				if strings.HasPrefix(p.ID, "sim:"+tt.country+"-") { // not a neighbour's
					ps = append(ps, p)
				}
			}
			if len(ps) < 20 {
				t.Fatalf("%d restaurants in %s", len(ps), tt.city)
			}
			for _, p := range ps {
				if p.Phone == "" {
					continue
				}
				if !strings.HasPrefix(p.Phone, tt.prefix) {
					t.Errorf("%s: phone %q, want %s…", p.Name, p.Phone, tt.prefix)
					continue
				}
				num, err := phonenumbers.Parse(p.Phone, "")
				if err != nil || !phonenumbers.IsValidNumber(num) || phonenumbers.GetRegionCodeForNumber(num) != tt.region {
					t.Errorf("%s: phone %q is not a valid %s number (%v)", p.Name, p.Phone, tt.region, err)
				}
			}
			t.Logf("%d places, e.g. %s, %s, %s", len(ps), ps[0].Name, ps[0].Address, ps[0].Phone)
		})
	}
}
