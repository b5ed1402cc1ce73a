package pagespeed_test

import (
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/pagespeed"
	"github.com/prospectdata/svc/shared/pagespeed/pagespeedsim"
)

func simModule(t testing.TB, strategy string) (enrich.Module, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(pagespeedsim.Handler())
	t.Cleanup(srv.Close)
	c, err := pagespeed.NewClient(pagespeed.Config{BaseURL: srv.URL, Strategy: strategy}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return enrich.PageSpeedModule(c, "sim"), srv
}

func TestSimHandler(t *testing.T) {
	m, _ := simModule(t, "")
	if enrich.SourceOf(m) != "sim" {
		t.Errorf("Source = %q", enrich.SourceOf(m))
	}
	site := "https://boulangerie-du-marche.k3x9aq.sim.test/"
	a, b := run(t, m, site), run(t, m, site)
	if strings.Join(a.Values, ",") != strings.Join(b.Values, ",") {
		t.Errorf("not deterministic: %v then %v", a.Values, b.Values)
	}
	if !a.Found || a.Unreachable {
		t.Errorf("sim site: %+v", a)
	}
	var withINP int
	const sites = 300
	for i := 0; i < sites; i++ {
		r := run(t, m, fmt.Sprintf("https://site-%d.tok%d.sim.test/", i, i))
		v := cells(m, r)
		for _, k := range []string{"perf_score", "seo_score", "accessibility_score", "best_practices_score"} {
			n, err := strconv.Atoi(v[k])
			if err != nil || n < 0 || n > 100 {
				t.Fatalf("%s = %q", k, v[k])
			}
		}
		if lcp, err := strconv.Atoi(v["lcp"]); err != nil || lcp < 1000 || lcp > 12000 {
			t.Fatalf("lcp = %q", v["lcp"])
		}
		if cls, err := strconv.ParseFloat(v["cls"], 64); err != nil || cls < 0 || cls > 0.5 {
			t.Fatalf("cls = %q", v["cls"])
		}
		if v["inp"] != "" {
			withINP++
			if inp, err := strconv.Atoi(v["inp"]); err != nil || inp < 50 || inp > 1000 {
				t.Fatalf("inp = %q", v["inp"])
			}
		}
	}
	if share := float64(withINP) / sites; share < 0.2 || share > 0.4 {
		t.Errorf("%.0f%% of sites with field data, want about 30%%", 100*share)
	}
	// A host outside the simulated world: the API's FAILED_DOCUMENT_REQUEST.
	if r := run(t, m, "https://www.example.com/"); !r.Unreachable {
		t.Errorf("unknown host: %+v", r)
	}
	// The desktop strategy is another run.
	d, _ := simModule(t, "desktop")
	if strings.Join(run(t, d, site).Values, ",") == strings.Join(a.Values, ",") {
		t.Error("desktop and mobile gave the same report")
	}
}
