package clocktest_test

import (
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/clocktest"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		move func(*clocktest.Clock)
		want time.Time
	}{
		{"still", func(*clocktest.Clock) {}, t0},
		{"advance", func(c *clocktest.Clock) { c.Advance(90 * time.Second) }, t0.Add(90 * time.Second)},
		{"set", func(c *clocktest.Clock) { c.Set(t0.AddDate(0, 1, 0)) }, t0.AddDate(0, 1, 0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := clocktest.New(t0)
			tt.move(c)
			if got := c.Now(); !got.Equal(tt.want) {
				t.Errorf("Now() = %v, want %v", got, tt.want)
			}
		})
	}
}
