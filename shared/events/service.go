package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/store"
)

// Table is the name of the events table.
const Table = "events"

// Schema is the key design of the events table (docs/tables.md): one
// partition per account, USER#<uid>; the events under their id zero-padded
// to 20 digits; the account's counter under SEQ (which sorts after every
// digit, outside the id range every read names). The table streams its
// changes for the webhook dispatcher.
func Schema() store.Schema {
	return store.Schema{Name: Table, PK: "pk", SK: "sk", TTL: "ttl", Stream: true}
}

const (
	seqSK = "SEQ"
	// appendAttempts bounds the tries of an append that keeps losing the
	// counter to concurrent appends of the same account.
	appendAttempts = 30
	// scanPage is the page size of a filtered scan.
	scanPage = 200
	// exportPage is the page size of the export's read.
	exportPage = 500
	// maxData caps an event's data document (DynamoDB items hold 400 KB).
	maxData = 256 << 10
)

// Service is the event log.
type Service struct {
	db  store.DB
	now func() time.Time
}

// New returns the event log over the events table of db.
func New(db store.DB, now func() time.Time) *Service {
	return &Service{db: db, now: now}
}

var _ accounts.Holder = (*Service)(nil)

func seqKey(uid int64) store.Key { return store.Key{PK: accounts.UserPK(uid), SK: seqSK} }

// headAttr and atAttr name the counter's attributes that keep the newest
// id of a type and its creation time.
func headAttr(typ string) string { return "head_" + strings.ReplaceAll(typ, ".", "_") }
func atAttr(typ string) string   { return "at_" + strings.ReplaceAll(typ, ".", "_") }

// counter is the account's SEQ item: the last id given, its creation time
// (epoch seconds), and the same per type.
type counter struct {
	it store.Item
}

func (c counter) n() int64  { return c.it.Int("n") }
func (c counter) at() int64 { return c.it.Int("at") }

// head is the newest id matching types (every type when empty) whose event
// is within the window at now; 0 when none.
func (c counter) head(types []string, now time.Time) int64 {
	if len(types) == 0 {
		if c.n() > 0 && inWindow(c.at(), now) {
			return c.n()
		}
		return 0
	}
	var h int64
	for _, t := range types {
		if id := c.it.Int(headAttr(t)); id > h && inWindow(c.it.Int(atAttr(t)), now) {
			h = id
		}
	}
	return h
}

// inWindow tells whether an event created at epoch second created is
// younger than Window at now.
func inWindow(created int64, now time.Time) bool {
	return created > now.Unix()-int64(Window/time.Second)
}

func (s *Service) counter(ctx context.Context, uid int64) (counter, error) {
	it, err := s.db.Table(Table).Get(ctx, seqKey(uid))
	if errors.Is(err, store.ErrNotFound) {
		return counter{it: store.Item{}}, nil
	}
	if err != nil {
		return counter{}, fmt.Errorf("events: read counter of %d: %w", uid, err)
	}
	return counter{it: it}, nil
}

// checkData refuses data whose Go type is not the shape of the type's
// family, so that every event carries every field of its shape.
func checkData(typ string, data any) error {
	ok := false
	switch family(typ) {
	case "job":
		switch d := data.(type) {
		case JobData:
			ok = true
		case *JobData:
			ok = d != nil
		}
	case "pipeline":
		switch d := data.(type) {
		case PipelineData:
			ok = true
		case *PipelineData:
			ok = d != nil
		}
	case "veille":
		switch d := data.(type) {
		case VeilleRunData:
			ok = true
		case *VeilleRunData:
			ok = d != nil
		}
	}
	if !ok {
		return fmt.Errorf("events: data of %s must be the %s data shape, not %T", typ, family(typ), data)
	}
	return nil
}

// Append adds an event to the account's log and returns it. Concurrent
// appends (several processes finishing jobs at once) each get their own id:
// the counter moves and the event is written in one transaction conditioned
// on the counter's value, retried when another append won the race.
func (s *Service) Append(ctx context.Context, uid int64, typ string, data any) (Event, error) {
	return s.AppendWith(ctx, uid, typ, data)
}

// AppendWith appends the event in the same transaction as the caller's own
// operations (a job's terminal transition, for instance), so that the state
// change and its event commit together or not at all. The caller's
// operations come first in the transaction: when one of their conditions
// fails, the error is a *store.TxConditionError whose Index is the position
// among the operations given, nothing is written and nothing is retried.
// At most store.MaxTxOps-2 operations, none on the account's events.
func (s *Service) AppendWith(ctx context.Context, uid int64, typ string, data any, ops ...store.TxOp) (Event, error) {
	if !Known(typ) {
		return Event{}, fmt.Errorf("events: unknown event type %q", typ)
	}
	if err := checkData(typ, data); err != nil {
		return Event{}, err
	}
	if len(ops) > store.MaxTxOps-2 {
		return Event{}, fmt.Errorf("events: %d operations with an event, over %d", len(ops), store.MaxTxOps-2)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Event{}, fmt.Errorf("events: encode %s data: %w", typ, err)
	}
	if len(raw) > maxData {
		return Event{}, fmt.Errorf("events: %s data of %d bytes, over %d", typ, len(raw), maxData)
	}
	mine := len(ops) // index of the counter operation
	for attempt := 1; ; attempt++ {
		c, err := s.counter(ctx, uid)
		if err != nil {
			return Event{}, err
		}
		n := c.n()
		id := n + 1
		// Never before the previous event: created_at follows the ids even
		// when the processes' clocks disagree by a few seconds.
		created := max(s.now().Unix(), c.at())
		cond := store.Eq("n", n)
		if n == 0 {
			cond = store.NotExists("n")
		}
		ev := Event{ID: id, Type: typ, CreatedAt: time.Unix(created, 0).UTC().Format(TimeFormat), Data: json.RawMessage(raw)}
		item := store.Item{
			"pk": accounts.UserPK(uid), "sk": store.Padded(id), "id": id, "type": typ,
			"created": created, "created_at": ev.CreatedAt, "data": string(raw),
			"ttl": created + int64((Window+TTLMargin)/time.Second),
		}
		tx := append(ops[:len(ops):len(ops)],
			store.UpdateOp(Table, seqKey(uid),
				store.Update{}.Set("n", id).Set("at", created).Set(headAttr(typ), id).Set(atAttr(typ), created), cond),
			store.PutOp(Table, item, store.NotExists("pk")))
		err = s.db.Transact(ctx, tx...)
		if err == nil {
			return ev, nil
		}
		var tce *store.TxConditionError
		if !errors.As(err, &tce) {
			return Event{}, fmt.Errorf("events: append %s for %d: %w", typ, uid, err)
		}
		if tce.Index < mine {
			return Event{}, err // the caller's condition: theirs to report
		}
		if tce.Index > mine || attempt >= appendAttempts {
			// An existing event with the id (index mine+1) means the counter
			// was lost; exhausting the attempts means unusual contention.
			return Event{}, fmt.Errorf("events: append %s for %d (id %d, attempt %d): %w", typ, uid, id, attempt, err)
		}
		// Another append took id: back off (full jitter) and read again.
		delay := time.Duration(rand.Int64N(int64(min(time.Millisecond<<attempt, 100*time.Millisecond))))
		select {
		case <-ctx.Done():
			return Event{}, fmt.Errorf("events: append %s for %d: %w", typ, uid, ctx.Err())
		case <-time.After(delay):
		}
	}
}

// fromItem decodes an event item.
func fromItem(it store.Item) Event {
	return Event{
		ID: it.Int("id"), Type: it.String("type"), CreatedAt: it.String("created_at"),
		Data: json.RawMessage(it.String("data")),
	}
}

// Head is the account's newest event id within the window, 0 when none.
func (s *Service) Head(ctx context.Context, uid int64) (int64, error) {
	c, err := s.counter(ctx, uid)
	if err != nil {
		return 0, err
	}
	return c.head(nil, s.now()), nil
}

// List returns a page of the account's feed (see the package rules).
//
// Cost: one GetItem of the counter, then Query pages over the id range
// (since_id, head_id] only. Without types the pages read just the events
// returned (plus, at the start of the window, events past it but not yet
// deleted by TTL). With types, every event of the range is read and the
// others skipped, MaxScan at most (pages of 200): a filtered feed costs
// reads in proportion to the account's whole traffic since the cursor,
// which is why the scan is bounded and last_id then moves past it.
func (s *Service) List(ctx context.Context, uid int64, q Query) (Page, error) {
	q, err := q.normalize()
	if err != nil {
		return Page{}, err
	}
	c, err := s.counter(ctx, uid)
	if err != nil {
		return Page{}, err
	}
	now := s.now()
	page := Page{Events: []Event{}, LastID: q.SinceID, HeadID: c.head(q.Types, now)}
	if page.HeadID <= q.SinceID {
		return page, nil // nothing matching above the cursor
	}
	var want map[string]bool
	if len(q.Types) > 0 {
		want = make(map[string]bool, len(q.Types))
		for _, t := range q.Types {
			want[t] = true
		}
	}
	sq := store.Query{
		PK:   accounts.UserPK(uid),
		SK:   store.SortCond{Op: store.SortBetween, Value: store.Padded(q.SinceID + 1), Value2: store.Padded(page.HeadID)},
		Desc: q.Desc,
	}
	scanned := 0
	var last int64 // last id examined
	bounded := false
scan:
	for {
		sq.Limit = min(scanPage, MaxScan-scanned)
		if want == nil {
			sq.Limit = min(q.Limit-len(page.Events), MaxScan-scanned)
		}
		p, err := s.db.Table(Table).Query(ctx, sq)
		if err != nil {
			return Page{}, fmt.Errorf("events: list for %d: %w", uid, err)
		}
		for _, it := range p.Items {
			scanned++
			last = it.Int("id")
			if !inWindow(it.Int("created"), now) {
				if q.Desc {
					break scan // created_at follows the ids: the rest is older
				}
				continue
			}
			if want != nil && !want[it.String("type")] {
				continue
			}
			page.Events = append(page.Events, fromItem(it))
			if len(page.Events) == q.Limit {
				break scan
			}
		}
		if p.Next == "" {
			break
		}
		if scanned >= MaxScan {
			bounded = true
			break
		}
		sq.After = p.Next
	}
	switch {
	case bounded && !q.Desc:
		page.LastID = last
	case len(page.Events) > 0:
		page.LastID = page.Events[len(page.Events)-1].ID
	}
	return page, nil
}

// all returns every event of the account within the window, oldest first.
func (s *Service) all(ctx context.Context, uid int64) ([]Event, error) {
	c, err := s.counter(ctx, uid)
	if err != nil {
		return nil, err
	}
	out := []Event{}
	if c.n() == 0 {
		return out, nil
	}
	now := s.now()
	q := store.Query{
		PK:    accounts.UserPK(uid),
		SK:    store.SortCond{Op: store.SortBetween, Value: store.Padded(1), Value2: store.Padded(c.n())},
		Limit: exportPage,
	}
	err = store.ForEach(ctx, s.db.Table(Table), q, func(it store.Item) error {
		if inWindow(it.Int("created"), now) {
			out = append(out, fromItem(it))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("events: read all of %d: %w", uid, err)
	}
	return out, nil
}

// Export puts the account's events of the window in events.json of the data
// export. The file is rendered here, before the archive's first byte, like
// the other sections' metadata: the creation quotas keep a week of events
// to a few thousand.
func (s *Service) Export(ctx context.Context, uid int64) (accounts.Section, error) {
	evs, err := s.all(ctx, uid)
	if err != nil {
		return accounts.Section{}, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(evs); err != nil {
		return accounts.Section{}, fmt.Errorf("events: export %d: %w", uid, err)
	}
	b := buf.Bytes()
	return accounts.Section{
		Entry: "events",
		Files: []accounts.File{{Path: "events.json", Open: func(context.Context) (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(b)), nil
		}}},
		Summary: "Événements (7 derniers jours) : " + strconv.Itoa(len(evs)),
	}, nil
}

// Purge deletes the account's events and, last, its counter, so that an
// interrupted purge can run again and an append racing it still finds the
// counter above every remaining id. Events already past their TTL are
// invisible to the read and are deleted by the TTL sweeper.
func (s *Service) Purge(ctx context.Context, uid int64) error {
	t := s.db.Table(Table)
	err := store.ForEach(ctx, t, store.Query{PK: accounts.UserPK(uid)}, func(it store.Item) error {
		return t.Delete(ctx, store.Key{PK: it.String("pk"), SK: it.String("sk")}, nil)
	})
	if err != nil {
		return fmt.Errorf("events: purge %d: %w", uid, err)
	}
	return nil
}

// Get returns the account's event with the id; store.ErrNotFound when it
// does not exist or has left the window (a webhook delivery retried past
// it is abandoned).
func (s *Service) Get(ctx context.Context, uid, id int64) (Event, error) {
	it, err := s.db.Table(Table).Get(ctx, store.Key{PK: accounts.UserPK(uid), SK: store.Padded(id)})
	if err != nil {
		return Event{}, fmt.Errorf("events: get %d of %d: %w", id, uid, err)
	}
	if !inWindow(it.Int("created"), s.now()) {
		return Event{}, fmt.Errorf("events: get %d of %d: out of the window: %w", id, uid, store.ErrNotFound)
	}
	return fromItem(it), nil
}

// Decode reads an item of the events table as its change feed or stream
// carries it: the account and the event, ok false for the account's
// counter and anything else that is not an event.
func Decode(it store.Item) (uid int64, ev Event, ok bool) {
	pk, sk := it.String("pk"), it.String("sk")
	rest, found := strings.CutPrefix(pk, "USER#")
	if !found || sk == seqSK || it.String("type") == "" {
		return 0, Event{}, false
	}
	uid, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		return 0, Event{}, false
	}
	return uid, fromItem(it), true
}
