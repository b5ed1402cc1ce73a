package pricing_test

import (
	"testing"

	"github.com/prospectdata/svc/shared/pricing"
)

func TestRefund(t *testing.T) {
	for _, tt := range []struct {
		name     string
		ef       float64
		planned  float64
		answered int
		want     float64
	}{
		{"nothing answered", 160, 160, 0, 160},
		{"half answered", 160, 160, 80, 80},
		{"every search answered", 160, 160, 160, 0},
		{"more answered than planned", 160, 100, 130, 0},
		{"a third, to the cent", 10, 3, 1, 6.67},
		{"a continuation, charged nothing", 0, 50, 0, 0},
		{"nothing planned", 12, 0, 0, 0},
		{"negative counts", 12, 10, -5, 12},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := pricing.Refund(tt.ef, tt.planned, tt.answered); got != tt.want {
				t.Errorf("Refund(%v, %v, %d) = %v, want %v", tt.ef, tt.planned, tt.answered, got, tt.want)
			}
		})
	}
}
