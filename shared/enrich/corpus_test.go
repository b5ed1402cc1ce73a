package enrich_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
)

// corpusPage is one entry of the socials corpus' labels (shared by the
// socials, legal ids and mentions extractors).
type corpusPage struct {
	File    string            `json:"file"`
	URL     string            `json:"url"`
	Socials map[string]string `json:"socials"`
	SIRET   string            `json:"siret"`
	SIREN   string            `json:"siren"`
}

// serveCorpus serves each site of the corpus from its own httptest
// server, at the paths its labels give, and returns the servers by site
// with their pages' labels.
func serveCorpus(t *testing.T) map[string]*corpusSite {
	t.Helper()
	dir := filepath.Join("socials", "testdata", "corpus")
	raw, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pages []corpusPage
	if err := json.Unmarshal(raw, &pages); err != nil {
		t.Fatal(err)
	}
	sites := map[string]*corpusSite{}
	for _, p := range pages {
		name := strings.Split(p.File, "/")[0]
		s := sites[name]
		if s == nil {
			s = &corpusSite{paths: map[string]string{}}
			sites[name] = s
		}
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		s.paths[u.Path] = filepath.Join(dir, p.File)
		s.pages = append(s.pages, p)
	}
	for _, s := range sites {
		s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, ok := s.paths[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			http.ServeFile(w, r, f)
		}))
		t.Cleanup(s.srv.Close)
	}
	return sites
}

type corpusSite struct {
	srv   *httptest.Server
	paths map[string]string // URL path -> file
	pages []corpusPage
}

// TestModulesOverTheCorpusSites runs socials and legal_ids as jobs run
// them, through the fetcher, on every site of the labelled corpus served
// by httptest (home page first; the modules find the contact and legal
// pages by their links), and measures them per site: an answer is right
// when one of the site's pages shows it.
func TestModulesOverTheCorpusSites(t *testing.T) {
	sites := serveCorpus(t)
	set := testSet(t)
	var tp, fp, fn, idTP, idFP, idFN int
	for name, s := range sites {
		env := &enrich.Env{Session: set.Session(), Job: enrich.Job{ID: "abcdefghijklmnop", UserID: 7}}
		in := enrich.Input{"site_web": s.srv.URL + "/"}
		_, soc := run(t, set, env, "socials", in)
		for _, network := range []string{"facebook", "instagram", "linkedin", "twitter", "tiktok", "youtube"} {
			shown := map[string]bool{}
			for _, p := range s.pages {
				if u := p.Socials[network]; u != "" {
					shown[u] = true
				}
			}
			got := soc["social_"+network]
			switch {
			case got != "" && shown[got]:
				tp++
			case got != "":
				fp++
				t.Logf("%s %s: %s not shown", name, network, got)
			case len(shown) > 0:
				fn++
				t.Logf("%s %s: missed %v", name, network, shown)
			}
		}
		_, ids := run(t, set, env, "legal_ids", in)
		sirets := map[string]bool{}
		for _, p := range s.pages {
			if p.SIRET != "" {
				sirets[p.SIRET] = true
			}
		}
		switch got := ids["siret"]; {
		case got != "" && sirets[got]:
			idTP++
		case got != "":
			idFP++
			t.Logf("%s siret: %s not shown", name, got)
		case len(sirets) > 0:
			idFN++
			t.Logf("%s siret: missed %v", name, sirets)
		}
	}
	check := func(what string, tp, fp, fn int) {
		p, r := float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1))
		t.Logf("%s over %d sites: tp=%d fp=%d fn=%d, precision %.3f, recall %.3f", what, len(sites), tp, fp, fn, p, r)
		if tp == 0 || p < 0.95 || r < 0.90 {
			t.Errorf("%s: precision %.3f, recall %.3f", what, p, r)
		}
	}
	check("socials", tp, fp, fn)
	check("legal ids", idTP, idFP, idFN)
}
