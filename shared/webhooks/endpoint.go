package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/store"
)

// Table is the name of the webhooks table.
const Table = "webhooks"

// Schema is the key design of the webhooks table (docs/tables.md).
func Schema() store.Schema { return store.Schema{Name: Table, PK: "pk", SK: "sk", TTL: "ttl"} }

// Spec limits and our caps.
const (
	MaxActive    = 5  // active endpoints per account (spec)
	MaxEndpoints = 25 // endpoints per account, disabled ones included
	MaxURL       = 2048
	MinSecret    = 16
	MaxSecret    = 128
	// DisableAfter consecutive failed attempts disable an endpoint.
	DisableAfter = 20
	// Timeout is how long a receiver has to answer.
	Timeout = 10 * time.Second
	// Retention is how long delivery and attempt records are kept.
	Retention = 30 * 24 * time.Hour
	// Listed is how many attempts the deliveries listing shows.
	Listed = 20

	timeFmt = "2006-01-02 15:04:05"
)

// Endpoint is the spec's webhook endpoint. Secret is set only in the
// creation answer.
type Endpoint struct {
	ID                  int64    `json:"id"`
	URL                 string   `json:"url"`
	Events              []string `json:"events"`
	Secret              string   `json:"secret,omitempty"`
	IsActive            bool     `json:"is_active"`
	ConsecutiveFailures int      `json:"consecutive_failures"`
	CreatedAt           string   `json:"created_at"`
	DisabledAt          *string  `json:"disabled_at"`

	userID int64
	secret string
}

// Checker is the creation-time check of a URL (netguard.Guard).
type Checker interface {
	CheckURL(ctx context.Context, raw string) (*url.URL, error)
}

// Deps are what the webhooks service acts on.
type Deps struct {
	DB     store.DB
	Queue  queue.Queue // nil where the runtime has no deliveries queue
	Events *events.Service
	// IDs allocates endpoint ids (accounts.Service.NextID).
	IDs func(ctx context.Context, seq string) (int64, error)
	// Check validates a URL at creation; Client posts deliveries (its
	// dialer checks every address it connects to).
	Check  Checker
	Client *http.Client
	Now    func() time.Time
	Log    *slog.Logger
	// Visibility is how long a delivery being handled stays hidden from
	// other consumers (0: the queue's own); above Timeout.
	Visibility time.Duration
}

// Service manages endpoints and delivers events to them.
type Service struct{ d Deps }

// New returns the webhooks service.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

var _ accounts.Holder = (*Service)(nil)

func endpointKey(uid, id int64) store.Key {
	return store.Key{PK: accounts.UserPK(uid), SK: "HOOK#" + store.Padded(id)}
}

func countKey(uid int64) store.Key { return store.Key{PK: accounts.UserPK(uid), SK: "HOOKS"} }

func (s *Service) stamp() string { return s.d.Now().UTC().Format(timeFmt) }

// Create validates and stores an endpoint (POST /api/webhooks): 422 for
// the events and the secret, 400 for the URL and the limits.
func (s *Service) Create(ctx context.Context, uid int64, rawURL string, types []string, secret *string) (*Endpoint, error) {
	types, err := cleanTypes(types)
	if err != nil {
		return nil, err
	}
	sec, err := cleanSecret(secret)
	if err != nil {
		return nil, err
	}
	rawURL = strings.TrimSpace(rawURL)
	if rawURL == "" || len(rawURL) > MaxURL {
		return nil, apperr.Fields(apperr.Field("url",
			fmt.Sprintf("L'URL est obligatoire (%d caractères au plus).", MaxURL),
			fmt.Sprintf("url is required (at most %d characters).", MaxURL)))
	}
	u, err := s.d.Check.CheckURL(ctx, rawURL)
	var ref *netguard.Refusal
	if errors.As(err, &ref) {
		return nil, apperr.New(apperr.Invalid, "URL refusée : "+ref.FR, "URL refused: "+ref.EN)
	}
	if err != nil {
		return nil, fmt.Errorf("check webhook url: %w", err)
	}
	id, err := s.d.IDs(ctx, "webhooks")
	if err != nil {
		return nil, err
	}
	e := &Endpoint{ID: id, URL: u.String(), Events: types, Secret: sec, IsActive: true, CreatedAt: s.stamp(), userID: uid, secret: sec}
	k := endpointKey(uid, id)
	err = s.d.DB.Transact(ctx,
		store.UpdateOp(Table, countKey(uid), store.Update{}.Add("active", 1).Add("total", 1),
			store.Or(store.NotExists("active"), store.And(store.Lt("active", int64(MaxActive)), store.Lt("total", int64(MaxEndpoints))))),
		store.PutOp(Table, store.Item{
			"pk": k.PK, "sk": k.SK, "id": id, "user_id": uid, "url": e.URL, "events": types, "secret": sec,
			"is_active": true, "consecutive_failures": int64(0), "created_at": e.CreatedAt,
		}, store.NotExists("pk")))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil, apperr.New(apperr.Invalid,
			fmt.Sprintf("Nombre maximum de webhooks atteint (%d actifs, %d au total). Supprime un webhook avant d'en créer un autre.", MaxActive, MaxEndpoints),
			fmt.Sprintf("Maximum number of webhooks reached (%d active, %d in all). Delete a webhook before creating another.", MaxActive, MaxEndpoints))
	}
	if err != nil {
		return nil, fmt.Errorf("create webhook: %w", err)
	}
	return e, nil
}

// cleanTypes keeps each known type once, in the spec's order: at least
// one, every one known (422 otherwise).
func cleanTypes(types []string) ([]string, error) {
	if len(types) == 0 {
		return nil, apperr.Fields(apperr.Field("events", "Choisis au moins un type d'événement.",
			"events needs at least one event type."))
	}
	if len(types) > 50 {
		return nil, apperr.Fields(apperr.Field("events", "Trop de types d'événements.", "events has too many entries."))
	}
	for _, t := range types {
		if !events.Known(t) {
			return nil, apperr.Fields(apperr.Field("events",
				fmt.Sprintf("Type d'événement inconnu : %q.", t),
				fmt.Sprintf("unknown event type %q (known: %s)", t, strings.Join(events.Types(), ", "))))
		}
	}
	out := []string{}
	for _, t := range events.Types() {
		if slices.Contains(types, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// cleanSecret checks a given secret (16 to 128 characters, printable, no
// spaces at the ends) or generates one.
func cleanSecret(secret *string) (string, error) {
	if secret == nil {
		var b [24]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
		return "whsec_" + hex.EncodeToString(b[:]), nil
	}
	sec := *secret
	n := utf8.RuneCountInString(sec)
	ok := n >= MinSecret && n <= MaxSecret && utf8.ValidString(sec) && strings.TrimSpace(sec) == sec
	for _, r := range sec {
		if r < 0x20 || r == 0x7f {
			ok = false
		}
	}
	if !ok {
		return "", apperr.Fields(apperr.Field("secret",
			fmt.Sprintf("Le secret doit contenir entre %d et %d caractères imprimables, sans espace au début ni à la fin.", MinSecret, MaxSecret),
			fmt.Sprintf("secret must be %d to %d printable characters, without spaces at either end.", MinSecret, MaxSecret)))
	}
	return sec, nil
}

func fromItem(it store.Item) *Endpoint {
	e := &Endpoint{
		ID: it.Int("id"), URL: it.String("url"), Events: it.Strings("events"), IsActive: it.Bool("is_active"),
		ConsecutiveFailures: int(it.Int("consecutive_failures")), CreatedAt: it.String("created_at"),
		userID: it.Int("user_id"), secret: it.String("secret"),
	}
	if e.Events == nil {
		e.Events = []string{}
	}
	if v := it.String("disabled_at"); v != "" {
		e.DisabledAt = &v
	}
	return e
}

// List returns the user's endpoints, oldest first, without secrets.
func (s *Service) List(ctx context.Context, uid int64) ([]*Endpoint, error) {
	out := []*Endpoint{}
	err := store.ForEach(ctx, s.d.DB.Table(Table), store.Query{PK: accounts.UserPK(uid), SK: store.BeginsWith("HOOK#")},
		func(it store.Item) error {
			out = append(out, fromItem(it))
			if len(out) == MaxEndpoints {
				return store.ErrStop
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return out, nil
}

// parseID reads an endpoint id of a path; anything else is a 404.
func parseID(text string) (int64, error) {
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Missing()
	}
	return id, nil
}

// get reads the user's endpoint: another account's, or none, is a 404.
func (s *Service) get(ctx context.Context, uid, id int64) (*Endpoint, error) {
	it, err := s.d.DB.Table(Table).Get(ctx, endpointKey(uid, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apperr.Missing()
	}
	if err != nil {
		return nil, fmt.Errorf("get webhook %d: %w", id, err)
	}
	return fromItem(it), nil
}

// Delete removes the user's endpoint for good (DELETE /api/webhooks/{id}),
// giving back its slot, then its delivery records. A delivery of it still
// queued finds it gone and is dropped.
func (s *Service) Delete(ctx context.Context, uid int64, idText string) error {
	id, err := parseID(idText)
	if err != nil {
		return err
	}
	e, err := s.get(ctx, uid, id)
	if err != nil {
		return err
	}
	u := store.Update{}.Add("total", -1)
	if e.IsActive {
		u = u.Add("active", -1)
	}
	err = s.d.DB.Transact(ctx,
		store.DeleteOp(Table, endpointKey(uid, id), store.Eq("is_active", e.IsActive)),
		store.UpdateOp(Table, countKey(uid), u, nil))
	if errors.Is(err, store.ErrConditionFailed) {
		return apperr.New(apperr.Invalid, "Le webhook vient de changer d'état : réessaie.", "The webhook just changed state: retry.")
	}
	if err != nil {
		return fmt.Errorf("delete webhook %d: %w", id, err)
	}
	return s.purgeDeliveries(ctx, id)
}

// purgeDeliveries deletes an endpoint's delivery and attempt records.
func (s *Service) purgeDeliveries(ctx context.Context, id int64) error {
	t := s.d.DB.Table(Table)
	err := store.ForEach(ctx, t, store.Query{PK: hookPK(id)}, func(it store.Item) error {
		return t.Delete(ctx, store.Key{PK: it.String("pk"), SK: it.String("sk")}, nil)
	})
	if err != nil {
		return fmt.Errorf("delete deliveries of webhook %d: %w", id, err)
	}
	return nil
}

// Export is the account's endpoints for its data export, without secrets.
func (s *Service) Export(ctx context.Context, uid int64) (accounts.Section, error) {
	es, err := s.List(ctx, uid)
	if err != nil {
		return accounts.Section{}, err
	}
	return accounts.Section{Entry: "account", Key: "webhooks", Data: es,
		Summary: fmt.Sprintf("account.json webhooks: %d endpoints (secrets not included)", len(es))}, nil
}

// Purge deletes the account's endpoints, their deliveries and its count.
func (s *Service) Purge(ctx context.Context, uid int64) error {
	es, err := s.List(ctx, uid)
	if err != nil {
		return err
	}
	t := s.d.DB.Table(Table)
	for _, e := range es {
		if err := t.Delete(ctx, endpointKey(uid, e.ID), nil); err != nil {
			return fmt.Errorf("purge webhook %d: %w", e.ID, err)
		}
		if err := s.purgeDeliveries(ctx, e.ID); err != nil {
			return err
		}
	}
	if err := t.Delete(ctx, countKey(uid), nil); err != nil {
		return fmt.Errorf("purge webhook count of %d: %w", uid, err)
	}
	return nil
}
