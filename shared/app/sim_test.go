package app_test

import (
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// TestSimAdvance: an admin moves the simulated world forward; nobody else
// can.
func TestSimAdvance(t *testing.T) {
	e := apptest.Start(t)
	admin := e.NewClient()
	admin.Signup(apptest.AdminEmail, fixturePassword)
	user := e.NewClient()
	user.Signup("user-sim@example.org", fixturePassword)

	user.Do("POST", "/api/admin/sim/advance", map[string]any{"days": 1}).Must(t, 403)
	if got := admin.Do("POST", "/api/admin/sim/advance", map[string]any{"days": 3}).Must(t, 200).JSON(); got["day"] != 3.0 {
		t.Errorf("after 3 days: %v", got)
	}
	if got := admin.Do("POST", "/api/admin/sim/advance", map[string]any{"days": 2}).Must(t, 200).JSON(); got["day"] != 5.0 {
		t.Errorf("after 2 more: %v", got)
	}
	for _, days := range []any{0, -4, 4000, "x"} {
		r := admin.Do("POST", "/api/admin/sim/advance", map[string]any{"days": days})
		if r.Status != 422 && r.Status != 400 {
			t.Errorf("days %v: %d", days, r.Status)
		}
	}
}
