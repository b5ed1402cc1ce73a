package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/store"
)

// QueueName is the queue of deliveries.
const QueueName = "deliveries"

// UserAgent is the spec's User-Agent of every delivery.
const UserAgent = "svc-webhooks/1.0"

// Schedule is the wait before each retry of a failed delivery (spec):
// attempt n+1 comes Schedule[n-1] after attempt n fails; after the last,
// the delivery is abandoned (gave_up).
var Schedule = [...]time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour}

// MaxAttempts is the first attempt and its retries.
const MaxAttempts = len(Schedule) + 1

// Delivery states.
const (
	StatePending   = "pending"
	StateRetrying  = "retrying"
	StateDelivered = "delivered"
	StateGaveUp    = "gave_up"
)

// message is a deliveries-queue message: which attempt of which delivery,
// and when it is due (epoch ms; 0 for at once).
type message struct {
	User    int64 `json:"user"`
	Hook    int64 `json:"hook"`
	Event   int64 `json:"event"`
	Attempt int   `json:"attempt"`
	Due     int64 `json:"due,omitempty"`
}

func hookPK(id int64) string { return "HOOK#" + strconv.FormatInt(id, 10) }

func deliveryKey(hook, event int64) store.Key {
	return store.Key{PK: hookPK(hook), SK: "DLV#" + store.Padded(event)}
}

// DeliveryID is the X-Svc-Delivery of an endpoint's delivery of an event:
// the same for every attempt, unique per endpoint and event.
func DeliveryID(hook, event int64) string { return fmt.Sprintf("dlv_%d_%d", hook, event) }

// Sign is the X-Svc-Signature of body under secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify tells whether header (X-Svc-Signature) is the signature of the
// raw body under secret, compared in constant time: what a receiver does
// (docs/webhooks.md, "Verifying the signature"). The scheme has no
// timestamp: a receiver deduplicates replays by X-Svc-Delivery.
func Verify(secret string, body []byte, header string) bool {
	return hmac.Equal([]byte(Sign(secret, body)), []byte(header))
}

// FanOut turns a new event of the account into one delivery per active
// endpoint subscribed to its type. Called again for the same event (a
// change feed read twice), it sends again only the deliveries never
// attempted, whose first message may have been lost.
func (s *Service) FanOut(ctx context.Context, uid int64, ev events.Event) error {
	es, err := s.List(ctx, uid)
	if err != nil {
		return err
	}
	var msgs []queue.Message
	for _, e := range es {
		if !e.IsActive || !slices.Contains(e.Events, ev.Type) {
			continue
		}
		k := deliveryKey(e.ID, ev.ID)
		now := s.d.Now()
		err := s.d.DB.Table(Table).Put(ctx, store.Item{
			"pk": k.PK, "sk": k.SK, "user_id": uid, "event": ev.ID, "type": ev.Type, "state": StatePending,
			"attempts": int64(0), "created_at": now.UTC().Format(timeFmt), "ttl": now.Add(Retention).Unix(),
		}, store.NotExists("pk"))
		if errors.Is(err, store.ErrConditionFailed) {
			cur, gerr := s.d.DB.Table(Table).Get(ctx, k)
			if gerr != nil || cur.Int("attempts") > 0 || cur.String("state") != StatePending {
				continue // attempted already: its own messages carry it on
			}
		} else if err != nil {
			return fmt.Errorf("webhooks: record delivery %s: %w", DeliveryID(e.ID, ev.ID), err)
		}
		body, _ := json.Marshal(message{User: uid, Hook: e.ID, Event: ev.ID, Attempt: 1})
		msgs = append(msgs, queue.Message{Body: body})
	}
	if len(msgs) == 0 {
		return nil
	}
	if _, err := s.d.Queue.Send(ctx, QueueName, msgs...); err != nil {
		return fmt.Errorf("webhooks: queue deliveries of event %d: %w", ev.ID, err)
	}
	return nil
}

// FanOutChange fans out a change of the events table (a change feed's or a
// stream's new image); other items (the account's counter) are skipped.
func (s *Service) FanOutChange(ctx context.Context, it store.Item) error {
	uid, ev, ok := events.Decode(it)
	if !ok {
		return nil
	}
	return s.FanOut(ctx, uid, ev)
}

// Handle handles one deliveries-queue message: nil when it is done with (the
// caller deletes it), an error to have it delivered again.
func (s *Service) Handle(ctx context.Context, body []byte) error {
	var m message
	if err := json.Unmarshal(body, &m); err != nil || m.Hook <= 0 || m.Event <= 0 || m.Attempt < 1 || m.Attempt > MaxAttempts {
		s.d.Log.Error("webhooks: dropping an unreadable message", "body", string(body))
		return nil
	}
	now := s.d.Now()
	if wait := time.UnixMilli(m.Due).Sub(now); m.Due > 0 && wait > 0 {
		return s.send(ctx, m, wait) // not due yet: hop again
	}
	dk := deliveryKey(m.Hook, m.Event)
	d, err := s.d.DB.Table(Table).Get(ctx, dk)
	if errors.Is(err, store.ErrNotFound) {
		return nil // its endpoint was deleted, or it expired
	}
	if err != nil {
		return fmt.Errorf("webhooks: read delivery: %w", err)
	}
	if st := d.String("state"); st == StateDelivered || st == StateGaveUp || int(d.Int("attempts")) != m.Attempt-1 {
		return nil // done, or this attempt was recorded (a message handled twice)
	}
	eit, err := s.d.DB.Table(Table).Get(ctx, endpointKey(m.User, m.Hook))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("webhooks: read endpoint: %w", err)
	}
	e := fromItem(eit)
	res := result{}
	switch ev, err := s.d.Events.Get(ctx, m.User, m.Event); {
	case !e.IsActive:
		res = result{err: "the endpoint is disabled", final: true, skipped: true}
	case errors.Is(err, store.ErrNotFound):
		res = result{err: "the event left the 7-day window", final: true, skipped: true}
	case err != nil:
		return err
	default:
		res = s.post(ctx, e, ev)
	}
	return s.record(ctx, m, e, d.String("type"), res)
}

// result is the outcome of one attempt.
type result struct {
	ok       bool
	code     int
	err      string
	final    bool // no retry: the delivery is abandoned now
	skipped  bool // nothing was sent: the endpoint's failure count stays
	duration time.Duration
}

// post sends the event to the endpoint once.
func (s *Service) post(ctx context.Context, e *Endpoint, ev events.Event) result {
	body, err := json.Marshal(events.Event{ID: ev.ID, Type: ev.Type, CreatedAt: ev.CreatedAt, Data: ev.RawData()})
	if err != nil {
		return result{err: "encode event: " + err.Error(), final: true}
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return result{err: "bad url: " + err.Error(), final: true}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("X-Svc-Event", ev.Type)
	req.Header.Set("X-Svc-Delivery", DeliveryID(e.ID, ev.ID))
	req.Header.Set("X-Svc-Signature", Sign(e.secret, body))
	if netguard.IsLoopbackHost(req.URL.Hostname()) {
		// Only the local server's development switch lets such a URL
		// through (netguard.WithDevLoopback): say so at every delivery.
		s.d.Log.Warn("webhooks: DEVELOPMENT delivery to a loopback receiver, allowed only by the local switch SVC_DEV_LOOPBACK_WEBHOOKS",
			"webhook", e.ID, "delivery", DeliveryID(e.ID, ev.ID), "url", e.URL)
	}
	start := time.Now()
	resp, err := s.d.Client.Do(req)
	took := time.Since(start)
	if err != nil {
		msg := "connection failed: " + err.Error()
		switch {
		case errors.Is(err, netguard.ErrRefused):
			msg = "address refused: " + err.Error()
		case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
			msg = fmt.Sprintf("no answer within %s", Timeout)
		}
		return result{err: truncate(msg, 300), duration: took}
	}
	// Read a little of the body so the connection can be reused; the
	// receiver's answer is not kept.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return result{code: resp.StatusCode, err: fmt.Sprintf("status %d", resp.StatusCode), duration: took}
	}
	return result{ok: true, code: resp.StatusCode, duration: took}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// record writes the attempt's outcome, then sends the retry or disables
// the endpoint when it must.
func (s *Service) record(ctx context.Context, m message, e *Endpoint, typ string, res result) error {
	now := s.d.Now()
	state := StateDelivered
	var next time.Time
	switch {
	case res.ok:
	case res.final || m.Attempt >= MaxAttempts:
		state = StateGaveUp
	default:
		state = StateRetrying
		next = now.Add(Schedule[m.Attempt-1])
	}
	u := store.Update{}.Set("state", state).Set("attempts", int64(m.Attempt)).Set("http_code", int64(res.code)).
		Set("error", res.err).Set("updated_at", now.UTC().Format(timeFmt))
	if !next.IsZero() {
		u = u.Set("next_attempt_at", next.UTC().Format(timeFmt))
	} else {
		u = u.Remove("next_attempt_at")
	}
	att := store.Item{
		"pk": hookPK(e.ID), "sk": fmt.Sprintf("ATT#%s#%s#%d", store.Padded(now.UnixMilli()), store.Padded(m.Event), m.Attempt),
		"delivery_id": DeliveryID(e.ID, m.Event), "event_id": m.Event, "event_type": typ, "status": state,
		"attempts": int64(m.Attempt), "http_code": int64(res.code), "error": res.err,
		"attempted_at": now.UTC().Format(timeFmt), "duration_ms": res.duration.Milliseconds(),
		"ttl": now.Add(Retention).Unix(),
	}
	if !next.IsZero() {
		att["next_attempt_at"] = next.UTC().Format(timeFmt)
	}
	ops := []store.TxOp{
		store.UpdateOp(Table, deliveryKey(e.ID, m.Event), u, store.Eq("attempts", int64(m.Attempt-1))),
		store.PutOp(Table, att, nil),
	}
	if e.IsActive && !res.skipped {
		eu := store.Update{}.Set("consecutive_failures", int64(0))
		if !res.ok {
			eu = store.Update{}.Add("consecutive_failures", 1)
		}
		ops = append(ops, store.UpdateOp(Table, endpointKey(e.userID, e.ID), eu, store.Exists("pk")))
	}
	err := s.d.DB.Transact(ctx, ops...)
	var tce *store.TxConditionError
	if errors.As(err, &tce) {
		return nil // recorded by another handling of the message, or the endpoint is gone
	}
	if err != nil {
		return fmt.Errorf("webhooks: record attempt of %s: %w", DeliveryID(e.ID, m.Event), err)
	}
	if !res.ok && e.IsActive {
		if err := s.disableIfFailing(ctx, e); err != nil {
			return err
		}
	}
	if state == StateRetrying {
		m.Attempt++
		m.Due = next.UnixMilli()
		return s.send(ctx, m, next.Sub(now))
	}
	return nil
}

// disableIfFailing disables the endpoint once its consecutive failures
// reach DisableAfter, giving back its active slot, once.
func (s *Service) disableIfFailing(ctx context.Context, e *Endpoint) error {
	err := s.d.DB.Transact(ctx,
		store.UpdateOp(Table, endpointKey(e.userID, e.ID),
			store.Update{}.Set("is_active", false).Set("disabled_at", s.stamp()),
			store.And(store.Eq("is_active", true), store.Ge("consecutive_failures", int64(DisableAfter)))),
		store.UpdateOp(Table, countKey(e.userID), store.Update{}.Add("active", -1), nil))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil // below the threshold, or disabled already
	}
	if err != nil {
		return fmt.Errorf("webhooks: disable %d: %w", e.ID, err)
	}
	s.d.Log.Warn("webhook disabled after consecutive failures", "webhook", e.ID, "user", e.userID, "failures", DisableAfter)
	return nil
}

// send queues m after wait, at most the queue's longest delay: a message
// due later hops again when it arrives.
func (s *Service) send(ctx context.Context, m message, wait time.Duration) error {
	delay := min(max(wait, 0), queue.MaxDelay)
	// Queues count delays in whole seconds: round up, never early.
	delay = (delay + time.Second - 1).Truncate(time.Second)
	body, _ := json.Marshal(m)
	if _, err := s.d.Queue.Send(ctx, QueueName, queue.Message{Body: body, Delay: min(delay, queue.MaxDelay)}); err != nil {
		return fmt.Errorf("webhooks: queue attempt %d of %s: %w", m.Attempt, DeliveryID(m.Hook, m.Event), err)
	}
	return nil
}

// Attempt is one delivery attempt of GET /api/webhooks/{id}/deliveries.
type Attempt struct {
	DeliveryID    string  `json:"delivery_id"`
	EventID       int64   `json:"event_id"`
	EventType     string  `json:"event_type"`
	Status        string  `json:"status"`
	Attempts      int     `json:"attempts"`
	HTTPCode      *int    `json:"http_code"`
	Error         *string `json:"error"`
	AttemptedAt   string  `json:"attempted_at"`
	NextAttemptAt *string `json:"next_attempt_at"`
	DurationMS    int64   `json:"duration_ms"`
}

// Deliveries returns the endpoint's last Listed attempts, newest first.
func (s *Service) Deliveries(ctx context.Context, uid int64, idText string) ([]Attempt, error) {
	id, err := parseID(idText)
	if err != nil {
		return nil, err
	}
	if _, err := s.get(ctx, uid, id); err != nil {
		return nil, err
	}
	p, err := s.d.DB.Table(Table).Query(ctx, store.Query{PK: hookPK(id), SK: store.BeginsWith("ATT#"), Desc: true, Limit: Listed})
	if err != nil {
		return nil, fmt.Errorf("list deliveries of %d: %w", id, err)
	}
	out := make([]Attempt, 0, len(p.Items))
	for _, it := range p.Items {
		a := Attempt{
			DeliveryID: it.String("delivery_id"), EventID: it.Int("event_id"), EventType: it.String("event_type"),
			Status: it.String("status"), Attempts: int(it.Int("attempts")), AttemptedAt: it.String("attempted_at"),
			DurationMS: it.Int("duration_ms"),
		}
		if c := int(it.Int("http_code")); c != 0 {
			a.HTTPCode = &c
		}
		if e := it.String("error"); e != "" {
			a.Error = &e
		}
		if n := it.String("next_attempt_at"); n != "" {
			a.NextAttemptAt = &n
		}
		out = append(out, a)
	}
	return out, nil
}
