package store_test

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/prospectdata/svc/shared/store"
)

// TestPadded: every non-negative int64 is 20 digits, and the strings sort
// as the numbers do, so sort keys built with them order numerically.
func TestPadded(t *testing.T) {
	nums := []int64{0, 1, 9, 10, 99, 1_764_000_000_000, 1_000_000_000_000_000_000, math.MaxInt64}
	var keys []string
	for _, n := range nums {
		k := store.Padded(n)
		if len(k) != 20 {
			t.Errorf("Padded(%d) = %q, %d digits", n, k, len(k))
		}
		if back, err := strconv.ParseInt(k, 10, 64); err != nil || back != n {
			t.Errorf("Padded(%d) = %q reads back as %d (%v)", n, k, back, err)
		}
		keys = append(keys, k)
	}
	if !slices.IsSorted(keys) {
		t.Errorf("keys out of numeric order: %q", keys)
	}
}
