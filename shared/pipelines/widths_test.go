package pipelines

import (
	"testing"

	"github.com/prospectdata/svc/shared/imports"
	"github.com/prospectdata/svc/shared/jobs"
)

// TestWidestRowFitsAnItem: a stage's rows become the next stage's items,
// so an item must hold the widest row a valid pipeline can make: an
// import's columns plus every column the modules add (a type repeated
// adds none, its columns are the same).
func TestWidestRowFitsAnItem(t *testing.T) {
	produced := map[string]bool{}
	for _, n := range NewTable().Schema().Nodes {
		for _, c := range n.Produces {
			produced[c] = true
		}
	}
	if widest := imports.MaxColumns + len(produced); widest > jobs.MaxItemKeys {
		t.Errorf("a pipeline row may have %d columns (%d imported + %d produced), an item at most %d keys",
			widest, imports.MaxColumns, len(produced), jobs.MaxItemKeys)
	}
}
