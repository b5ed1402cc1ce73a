package pricing

import (
	"math"

	"github.com/prospectdata/svc/shared/modules"
)

// ItemEF is the cost of a job of the module over n items with the
// settings v, rounded to the cent: the module's price of one item
// (modules.Entry.EFPerItem) times its options' factors, times n; ok is
// false for a module that runs over no items.
func ItemEF(e modules.Entry, n int, v modules.Values) (ef float64, ok bool) {
	if !e.Items() {
		return 0, false
	}
	return math.Round(e.EFPerItem*e.Factor(v)*float64(n)*100) / 100, true
}
