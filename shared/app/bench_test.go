package app_test

import (
	"net/http/httptest"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// BenchmarkAuthMeWithKey is the in-process cost of GET /api/auth/me with an
// API key: authentication, scope, two table reads, the JSON answer and the
// access log line, without the network.
func BenchmarkAuthMeWithKey(b *testing.B) {
	e := apptest.Start(b)
	c := e.NewClient()
	c.Signup("bench@example.org", fixturePassword)
	k := c.CreateKey("bench")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/api/auth/me", nil)
			req.Header.Set("X-API-Key", k)
			w := httptest.NewRecorder()
			e.App.Server.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("status %d", w.Code)
			}
		}
	})
}
