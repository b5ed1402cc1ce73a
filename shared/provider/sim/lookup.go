package sim

import (
	"context"
	"fmt"
	"strings"

	"github.com/prospectdata/svc/shared/provider"
)

// Place returns the place's listing on the world's current day: the very
// fields Search lists for it that day (rating and review count drifting
// with the days), since both render the place from its id's batch alone.
// One exception: a place of a query the category table lacks has an empty
// Category, because ids do not carry the query its searches display.
//
// A place closed that day fails with provider.ErrClosed; one not open yet,
// or an id this world did not issue, with provider.ErrNotFound. Like
// Reviews, an id is checked before the call's latency and transient
// failure draw, so a malformed id costs no wait.
func (w *World) Place(ctx context.Context, placeID string) (provider.Place, error) {
	tok, ok := strings.CutPrefix(placeID, idPrefix)
	if !ok {
		return provider.Place{}, fmt.Errorf("%w: %q", provider.ErrNotFound, placeID)
	}
	ref, b, err := w.parseToken(tok)
	if err != nil {
		return provider.Place{}, err
	}
	if err := w.call(ctx, "place"); err != nil {
		return provider.Place{}, err
	}
	day, err := w.day(ctx)
	if err != nil {
		return provider.Place{}, err
	}
	p := &b.places[ref.index]
	switch {
	case int(p.birth) > day:
		return provider.Place{}, fmt.Errorf("%w: %q is not open yet on day %d", provider.ErrNotFound, placeID, day)
	case !p.open(day):
		return provider.Place{}, fmt.Errorf("%w: %q closed on day %d", provider.ErrClosed, placeID, p.close)
	}
	return w.place(b, ref.index, ref.cat, day), nil
}
