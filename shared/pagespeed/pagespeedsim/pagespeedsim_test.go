package pagespeedsim_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/pagespeed/pagespeedsim"
)

func TestHandlerRequests(t *testing.T) {
	srv := httptest.NewServer(pagespeedsim.Handler())
	defer srv.Close()
	tests := []struct {
		path string
		code int
		want string
	}{
		{"/pagespeedonline/v5/runPagespeed?url=https://a.b.sim.test/&category=seo", 200, `"seo"`},
		{"/pagespeedonline/v5/runPagespeed?url=https://a.b.sim.test/", 200, `"performance"`},
		{"/pagespeedonline/v5/runPagespeed", 400, "INVALID_ARGUMENT"},
		{"/pagespeedonline/v5/runPagespeed?url=notaurl", 400, "INVALID_ARGUMENT"},
		{"/pagespeedonline/v5/runPagespeed?url=https://a.b.sim.test/&strategy=tablet", 400, "strategy"},
		{"/pagespeedonline/v5/runPagespeed?url=https://www.example.org/", 400, "FAILED_DOCUMENT_REQUEST"},
		{"/other", 404, "NOT_FOUND"},
	}
	for _, tt := range tests {
		resp, err := http.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.code || !strings.Contains(string(body), tt.want) {
			t.Errorf("GET %s: %d %.200s", tt.path, resp.StatusCode, body)
		}
	}
}
