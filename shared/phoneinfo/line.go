package phoneinfo

import (
	"context"
	"errors"
	"sync"
	"time"
)

// LineTTL is how long a line's check is taken as current: the cache
// answers for a number checked within it, and an older check is made
// again. Porting and reachability change over weeks, and a lookup is
// paid for: a month is the compromise (docs/phone-info.md).
const LineTTL = 30 * 24 * time.Hour

// LineLookup is the port of the live check of a number's line: which
// network serves it now, whether it left its block's operator, whether it
// is attached to a network. The module asks it for the numbers its cache
// holds nothing fresh for, and records the answer in the cache (read
// through: a number is asked once per cache lifetime).
//
// Its implementations: HLRClient (hlr-lookups.com's HLR API), which the
// twin (phoneinfosim.LineHandler) also answers under offline runs.
type LineLookup interface {
	// LookupLine checks one number, in E.164 ("+33612345678"). A field
	// the network did not tell stays unknown in the Status. An error is
	// that number's failure (the module counts it and goes on), or the
	// context's.
	LookupLine(ctx context.Context, e164 string) (Status, error)
}

// ErrRefused marks a lookup the upstream refused for the account (a
// wrong key or secret, no credit left): every other number would fail
// alike until the operator mends the configuration.
var ErrRefused = errors.New("phone line lookup: refused")

// ErrLookup marks a lookup that gave no usable answer (the upstream down
// after the retries, a malformed body, a lookup it could not complete).
var ErrLookup = errors.New("phone line lookup failed")

// LineNotConfigured is the job log's line (English, French) of a
// phone_info job run without a live lookup: the three live columns come
// from the cache alone, so the log says why they are empty rather than
// leaving the user to guess.
const (
	LineNotConfigured   = "phone line lookup not configured: phone_carrier_current, phone_is_ported, phone_is_reachable left empty"
	LineNotConfiguredFR = "recherche de ligne téléphonique non configurée : phone_carrier_current, phone_is_ported, phone_is_reachable laissées vides"
)

// LineColumns are the columns a LineLookup fills.
var LineColumns = []string{"phone_carrier_current", "phone_is_ported", "phone_is_reachable"}

// Lookable tells whether a number is one a line lookup can say anything
// of: HLRs are mobile networks' registers, so a fixed line, a toll-free
// or premium number has no entry (the lookup would be paid for nothing).
// US and Canadian numbers do not tell mobiles apart and are asked.
func Lookable(n Number) bool {
	return n.Valid && (n.LineType == LineMobile || n.LineType == LineFixedOrMobile)
}

// flight makes the concurrent lookups of one number one call: the items
// of a batch run at once, and a list often holds a number twice.
type flight struct {
	mu    sync.Mutex
	calls map[string]*call
}

type call struct {
	done chan struct{}
	s    Status
	err  error
}

// do runs fn for key unless a call for key is under way, whose result it
// then shares. A waiter whose context ends stops waiting.
func (f *flight) do(ctx context.Context, key string, fn func() (Status, error)) (Status, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]*call{}
	}
	if c, ok := f.calls[key]; ok {
		f.mu.Unlock()
		select {
		case <-c.done:
			return c.s, c.err
		case <-ctx.Done():
			return Status{}, ctx.Err()
		}
	}
	c := &call{done: make(chan struct{})}
	f.calls[key] = c
	f.mu.Unlock()
	c.s, c.err = fn()
	f.mu.Lock()
	delete(f.calls, key)
	f.mu.Unlock()
	close(c.done)
	return c.s, c.err
}
