package store

import (
	"context"
	"errors"
	"fmt"
)

// ErrStop, returned by a ForEach callback, ends the walk early; ForEach
// then returns nil.
var ErrStop = errors.New("store: stop")

// ForEach visits every item of a query, page by page. fn may delete the item
// it is given: the cursor is the last key read, not a position.
func ForEach(ctx context.Context, t Table, q Query, fn func(Item) error) error {
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.PK, err)
		}
		for _, it := range p.Items {
			if err := fn(it); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
		if p.Next == "" {
			return nil
		}
		q.After = p.Next
	}
}
