package app_test

import (
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/modules"
)

// TestEveryModuleBound: the app binds every module of items the registry
// declares (enrich.NewSet checks each binding's slug and columns), so that
// a job of any module the routes offer finds its code.
func TestEveryModuleBound(t *testing.T) {
	e := apptest.Start(t)
	for _, m := range modules.Entries() {
		if !m.Items() || m.AlphaUnavailable {
			continue
		}
		if _, ok := e.App.Modules.Lookup(m.Slug); !ok {
			t.Errorf("%s: declared, not bound", m.Slug)
		}
	}
}
