package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/sirene"
)

// TestSirene: the sirene source (a pipeline's root node) lists the sim
// world's establishments of an activity in French zones into a CSV with
// the node's columns; its configuration is checked before anything is
// written.
func TestSirene(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("sirene@example.org", fixturePassword)
	c.Verify("sirene@example.org")
	me := c.Do("GET", "/api/auth/me", nil).Must(t, 200).JSON()
	u, err := e.App.Accounts.User(context.Background(), int64(me["id"].(float64)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		cfg   sirene.Config
		field string
	}{
		{"no activity", sirene.Config{Zones: []string{"Lyon"}}, "activites"},
		{"unknown activity", sirene.Config{Activites: []string{"dompteur de puces"}, Zones: []string{"Lyon"}}, "activites"},
		{"no zone", sirene.Config{Activites: []string{"boulangerie"}}, "zones"},
		{"a radius", sirene.Config{Activites: []string{"boulangerie"}, Zones: []string{"Lyon 10km"}}, "zones"},
		{"bad etablissements", sirene.Config{Activites: []string{"boulangerie"}, Zones: []string{"Lyon"}, Etablissements: "x"}, "etablissements"},
		{"bad date", sirene.Config{Activites: []string{"boulangerie"}, Zones: []string{"Lyon"}, CreeApres: "03/2020"}, "cree_apres"},
		{"stop_at over the ceiling", sirene.Config{Activites: []string{"boulangerie"}, Zones: []string{"Lyon"}, StopAt: 50001}, "stop_at"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sirene.Create(ctx, e.App.Jobs, u, e.App.Scrape, tt.cfg)
			var ae *apperr.Error
			if !errors.As(err, &ae) || (len(ae.Fields) > 0 && ae.Fields[0].Field != tt.field) {
				t.Fatalf("err %v, want a refusal on %s", err, tt.field)
			}
		})
	}
	if list := strings.TrimSpace(string(c.Do("GET", "/api/jobs", nil).Must(t, 200).Body)); list != "[]" {
		t.Fatalf("refusals wrote jobs: %s", list)
	}
	j, err := sirene.Create(ctx, e.App.Jobs, u, e.App.Scrape, sirene.Config{Activites: []string{"boulangerie"},
		Zones: []string{"Lyon", "Villeurbanne"}, StopAt: 40})
	if err != nil {
		t.Fatal(err)
	}
	if j.JobType != "sirene" || j.Source != "sim" || j.EFCost != 0.04 {
		t.Fatalf("created: %+v", j)
	}
	got := waitJob(t, c, j.ID, finished)
	if got["status"] != "done" || got["download_available"] != true {
		t.Fatalf("after the run: %v", got)
	}
	recs := readCSV(t, c, j.ID)
	if !slices.Equal(recs[0], sirene.Columns) || len(recs) < 2 || len(recs)-1 > 40 || got["results_count"] != float64(len(recs)-1) {
		t.Fatalf("%d records, header %q, results_count %v", len(recs), recs[0], got["results_count"])
	}
	for _, r := range recs[1:] {
		if len(r[4]) != 14 || !strings.HasPrefix(r[4], r[5]) || !strings.HasPrefix(r[2], "69") || r[6] == "" {
			t.Errorf("row %q", r)
		}
	}
}

// TestSireneWholeCountry: a sirene job over "France" searches the
// registers region by region and ends done with rows (it used to pass
// validation and fail at run time: the registers refuse a search without
// an area).
func TestSireneWholeCountry(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("sirene-fr@example.org", fixturePassword)
	c.Verify("sirene-fr@example.org")
	me := c.Do("GET", "/api/auth/me", nil).Must(t, 200).JSON()
	u, err := e.App.Accounts.User(context.Background(), int64(me["id"].(float64)))
	if err != nil {
		t.Fatal(err)
	}
	j, err := sirene.Create(context.Background(), e.App.Jobs, u, e.App.Scrape, sirene.Config{Activites: []string{"boulangerie"},
		Zones: []string{"France"}, StopAt: 30})
	if err != nil {
		t.Fatal(err)
	}
	got := waitJob(t, c, j.ID, finished)
	if got["status"] != "done" || got["results_count"].(float64) < 1 {
		t.Fatalf("after the run: %v", got)
	}
}
