// Package app assembles the services and the HTTP surface from the adapters
// a runtime provides, so that the local server and every Lambda wire the same
// way and differ only in their adapters.
package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/captcha"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/density"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/exports"
	"github.com/prospectdata/svc/shared/features"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/keys"
	"github.com/prospectdata/svc/shared/mail"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/veille"
	"github.com/prospectdata/svc/shared/webhooks"
)

// Schemas lists every table the service uses.
func Schemas() []store.Schema {
	return []store.Schema{accounts.Schema(), ratelimit.Schema(), jobs.Schema(), pipelines.StoreSchema(), veille.Schema(),
		density.Schema(), events.Schema(), webhooks.Schema()}
}

// Adapters are what a runtime plugs in.
type Adapters struct {
	DB            store.DB
	Mail          mail.Sender
	SessionSecret []byte
	Now           func() time.Time
	Log           *slog.Logger
	HTTPClient    *http.Client // outbound calls (captcha)
	// Queue and Files carry the work of jobs: the task queues of Queues()
	// and the file store of job outputs.
	Queue queue.Queue
	Files blob.Store
	// Guard checks webhook URLs and every address a delivery connects
	// to; nil builds the default (public hosts only, the service's own
	// host refused). Tests pass one that trusts their loopback receiver.
	Guard *netguard.Guard
	// WebhookGuard, when set, replaces Guard for webhook URLs and
	// deliveries only (crawls, imports and sources keep Guard): the local
	// server's development switch (netguard.WithDevLoopback). The AWS
	// wiring never sets it.
	WebhookGuard *netguard.Guard
	// TaskVisibility is how long a task message stays hidden while a
	// worker handles it (renewed as it goes); a worker that dies releases
	// its messages that long after. 0 keeps the engine's default.
	TaskVisibility time.Duration
	// DeliveryVisibility is the same for webhook deliveries (0: the
	// queue's own).
	DeliveryVisibility time.Duration
	// Pipelines runs the pipelines' executions (Step Functions on AWS);
	// nil runs them in process.
	Pipelines pipelines.Executor
	// ResponseCap is the largest HTTP response the runtime can send (a
	// Lambda's 6 MB behind API Gateway, with its short timeout); 0: no
	// cap (the local server). Under a cap the API serves no large body:
	// items pages stop before it, JSON and XLSX are made by workers, the
	// account export is built by a worker into the file store.
	ResponseCap int
}

// App is the assembled service.
type App struct {
	Accounts *accounts.Service
	Keys     *keys.Service
	Features *features.Service
	Scrape   *scrape.Service
	Jobs     *jobs.Service
	// Provider is the map provider (built on first use).
	Provider provider.Provider
	// Engine runs jobs; nil when the runtime gives no queue or files.
	Engine Engine
	// Webhooks manages endpoints and delivers events to them.
	Webhooks *webhooks.Service
	// Pipelines creates pipelines and runs their steps.
	Pipelines *pipelines.Service
	// Veille replays scrapes and pipelines on schedule and diffs them.
	Veille *veille.Service
	// Modules are the enrichment modules bound to the registry's slugs.
	Modules *enrich.Set
	Server  *api.Server

	queue queue.Queue
	db    store.DB
	log   *slog.Logger
}

// New wires the services over the adapters; opts choose what the HTTP
// surface mounts (a Lambda mounts its route group only).
func New(cfg config.Config, ad Adapters, opts ...api.Option) (*App, error) {
	limits := ratelimit.New(ad.DB, ad.Now)
	acc := newAccounts(cfg, ad, limits)
	ks := keys.New(ad.DB, limits, acc.NextID, ad.Now)
	fs := features.New(ad.DB)
	acc.AddHolder(ks)
	acc.AddHolder(fs)
	evs := events.New(ad.DB, ad.Now)
	acc.AddHolder(evs)
	ledger, densities, sc := newScrape(cfg, ad, acc, limits)
	var days *sim.Days
	if cfg.MapProvider == "sim" {
		days = sim.NewDays(ad.DB, accounts.Table, ad.Now)
	}
	prov := newProvider(cfg, ad, sc, days)
	// The engine runs where the runtime gives queues and files: everywhere
	// locally, in the Lambdas that send work or run it on AWS.
	guard := ad.Guard
	if guard == nil {
		guard = netguard.New(netguard.WithOwnHosts(ownHosts(cfg.BaseURL)...))
	}
	// The modules are built everywhere: the API names a module job's
	// source at creation, the workers run them.
	srcs := newSources(cfg, guard, prov, sc.Gazetteer, ad.DB, ad.Files, ad.Now, ad.Log)
	srcs.importHosts = importHosts(cfg, guard)
	mods, err := newModules(cfg, guard, prov, sc.Gazetteer, ad.Files, srcs, ad.Log)
	if err != nil {
		return nil, err
	}
	// One order, no forward declaration: the services, then the engine
	// over them, attached to the jobs as their runner (jobs.Runner); the
	// event feed and the pipelines listen to jobs' ends (jobs.Listener).
	js := jobs.New(jobs.Deps{
		DB: ad.DB, Scrape: sc, Ledger: ledger, Limits: limits, Accounts: acc, Now: ad.Now, Source: cfg.MapProvider,
		ModuleSource: mods.Source, Files: ad.Files, Log: ad.Log,
		DeriveInWorker: ad.ResponseCap > 0, ItemsPageBytes: itemsPageBytes(ad.ResponseCap),
	})
	ps := pipelines.NewService(pipelines.ServiceDeps{DB: ad.DB, Jobs: js, Scrape: sc, Accounts: acc, Events: evs, Now: ad.Now, Log: ad.Log,
		Executor: ad.Pipelines,
		Checker:  pipelines.NewChecker(pipelines.NewTable(), pipelines.Deps{Scrape: sc, Jobs: js, Hosts: srcs.importHosts})})
	js.Listen(jobEvents{evs: evs, baseURL: cfg.BaseURL, log: ad.Log})
	js.ListenStages(ps)
	acc.AddHolder(js)
	acc.AddHolder(ps)
	vs := veille.New(veille.Deps{DB: ad.DB, Files: ad.Files, Jobs: js, Pipelines: ps, Accounts: acc, Events: evs,
		Ledger: ledger, Provider: prov, Now: ad.Now, Log: ad.Log})
	acc.AddHolder(vs)
	wh := newWebhooks(ad, guard, evs, acc)
	acc.AddHolder(wh)
	xs := newExports(ad, acc)
	eng := newEngine(engineWiring{ad: ad, prov: prov, sc: sc, dens: densities, mods: mods, srcs: srcs, js: js, ps: ps, xs: xs})
	if eng != nil {
		js.Attach(eng)
	}
	srv := api.New(api.Deps{
		Accounts: acc, Keys: ks, Features: fs, Scrape: sc, Jobs: js, Events: evs, Webhooks: wh, World: world(days), Files: ad.Files, Log: ad.Log,
		Companies: srcs.companies(), Delivery: srcs.delivery,
		Pipelines: ps, Veille: vs, Exports: apiExports(ad, xs),
		BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies,
	}, opts...)
	return &App{Accounts: acc, Keys: ks, Features: fs, Scrape: sc, Jobs: js, Provider: prov, Engine: eng, Webhooks: wh,
		Pipelines: ps, Veille: vs, Modules: mods, Server: srv, queue: ad.Queue, db: ad.DB, log: ad.Log}, nil
}

// newAccounts is the account service, with the captcha when one is
// configured.
func newAccounts(cfg config.Config, ad Adapters, limits *ratelimit.Limiter) *accounts.Service {
	var verifier captcha.Verifier
	if cfg.CaptchaSecret != "" {
		verifier = &captcha.Siteverify{URL: cfg.CaptchaURL, Secret: cfg.CaptchaSecret, Client: ad.HTTPClient}
	}
	return accounts.New(accounts.Deps{
		DB: ad.DB, Mail: ad.Mail, Captcha: verifier, Limits: limits,
		SessionSecret: ad.SessionSecret, Now: ad.Now, Log: ad.Log,
	}, accounts.Config{
		BaseURL: cfg.BaseURL, InvitationCodes: cfg.InvitationCodes, AdminEmails: cfg.AdminEmails, MailFrom: cfg.MailFrom,
	})
}

// newScrape is the scrape planner over the EF ledger (the configured
// quota) and the query densities.
func newScrape(cfg config.Config, ad Adapters, acc *accounts.Service, limits *ratelimit.Limiter) (*accounts.Ledger, *density.Rates, *scrape.Service) {
	quota := float64(pricing.DefaultQuota)
	if cfg.EFQuota != nil {
		quota = *cfg.EFQuota
	}
	threshold := float64(pricing.DefaultThreshold)
	if cfg.EFCostThreshold != nil {
		threshold = *cfg.EFCostThreshold
	}
	ledger := accounts.NewLedger(ad.DB, ad.Now, quota)
	densities := density.New(ad.DB.Table(density.Table))
	sc := scrape.New(scrape.Deps{
		Gazetteer: loadGazetteer, Ledger: ledger, Limits: limits, Accounts: acc, CostThreshold: threshold,
		Densities: densities,
	})
	return ledger, densities, sc
}

// newWebhooks is the webhook service; its addresses are checked by the
// runtime's webhook guard when it has one (tests), else by guard.
func newWebhooks(ad Adapters, guard *netguard.Guard, evs *events.Service, acc *accounts.Service) *webhooks.Service {
	hookGuard := guard
	if ad.WebhookGuard != nil {
		hookGuard = ad.WebhookGuard
	}
	return webhooks.New(webhooks.Deps{
		DB: ad.DB, Queue: ad.Queue, Events: evs, IDs: acc.NextID, Check: hookGuard, Client: hookGuard.Client(webhooks.Timeout),
		Now: ad.Now, Log: ad.Log, Visibility: ad.DeliveryVisibility,
	})
}

// newExports is the account-export service where the runtime has a queue
// and files (nil otherwise): the archive is built by the finalize queue's
// worker, and the account functions ask without the engine
// (exports.RequestBody).
func newExports(ad Adapters, acc *accounts.Service) *exports.Service {
	if ad.Queue == nil || ad.Files == nil {
		return nil
	}
	return exports.New(exports.Deps{Files: ad.Files, Accounts: acc, Request: func(ctx context.Context, uid int64) error {
		_, err := ad.Queue.Send(ctx, QueueFinalize, queue.Message{Body: exports.RequestBody(uid)})
		return err
	}, Now: ad.Now, Log: ad.Log})
}

// apiExports is the export the API builds in a worker: only under a
// response cap (a Lambda). Otherwise a nil interface, not one holding a
// nil *exports.Service, which the route would call.
func apiExports(ad Adapters, xs *exports.Service) api.Exports {
	if ad.ResponseCap > 0 && xs != nil {
		return xs
	}
	return nil
}

// itemsPageBytes bounds an items page under a response cap: 11/12 of it
// (5.5 MiB of a Lambda's 6 MiB), the rest left to the headers and the
// response's envelope.
func itemsPageBytes(responseCap int) int { return responseCap / 12 * 11 }

// redelivery is, per work queue, the longest a message may take over its
// deliveries (MaxReceives × visibility): the engine's sweep bounds a job's
// silence by the chain of the message it waits for.
func redelivery() map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, q := range Queues() {
		if q.MaxReceives > 0 {
			out[q.Name] = time.Duration(q.MaxReceives) * q.VisibilityTimeout
		}
	}
	return out
}

// deadlines bound a message's handling in the local runtime by its
// worker's Lambda timeout, so that a stuck call ends in a give-up there too.
func deadlines() map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, w := range Workers() {
		if w.Queue != "" {
			out[w.Queue] = time.Duration(w.TimeoutS) * time.Second
		}
	}
	return out
}

// LocalVeilleTick is the local runtime's veille tick: a forced run (the
// admin route) starts within it.
const LocalVeilleTick = 10 * time.Second

// Work runs the local runtime's workers until ctx ends: the engine's
// consumers of the tasks queue and the Schedules, each sent once at start
// (to repair what a stop left, such as a held pool lease) and then at its
// rate. On AWS, Lambdas and EventBridge rules do the same.
func (a *App) Work(ctx context.Context) error {
	if a.Engine == nil {
		return errors.New("app: no engine (the runtime gave no queue or file store)")
	}
	var wg sync.WaitGroup
	defer wg.Wait() // no send after Work returns (the queue may close then)
	defer a.Pipelines.Stop()
	for _, sc := range Schedules() {
		wg.Go(func() {
			t := time.NewTicker(sc.Every)
			defer t.Stop()
			for {
				if _, err := a.queue.Send(ctx, sc.Queue, queue.Message{Body: []byte(sc.Body)}); err != nil && ctx.Err() == nil {
					a.log.Warn("schedule not sent", "schedule", sc.Name, "err", err)
				}
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		})
	}
	if feed, ok := a.db.(store.Feed); ok {
		wg.Go(func() { a.Webhooks.Run(ctx, feed) })
	}
	// The veille tick: on AWS an EventBridge rule invokes veille-tick.
	wg.Go(func() {
		t := time.NewTicker(LocalVeilleTick)
		defer t.Stop()
		for {
			if _, err := a.Veille.Tick(ctx); err != nil && ctx.Err() == nil {
				a.log.Warn("veille tick", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return a.Engine.Run(ctx)
}

// ownHosts is the service's own host, which webhooks may not target.
func ownHosts(baseURL string) []string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	return []string{u.Hostname()}
}

// Engine runs the work of jobs (shared/engine): the App holds it behind
// this interface so that the account functions, built without the engine
// (work_account.go), need not link it.
type Engine interface {
	Start(ctx context.Context, j *jobs.Job) error
	Salvage(ctx context.Context, j *jobs.Job) error
	Derive(ctx context.Context, id string, f export.Format) error
	HandleDelivery(ctx context.Context, body []byte, receiveCount int) error
	Run(ctx context.Context) error
}

// engineWiring is what the engine is built over: it is built last, over
// the services it tells of its jobs' progress.
type engineWiring struct {
	ad   Adapters
	prov *lazyProvider
	sc   *scrape.Service
	dens *density.Rates
	mods *enrich.Set
	srcs *sources
	js   *jobs.Service
	ps   *pipelines.Service
	xs   *exports.Service
}

// world is the API's admin clock: the simulated world's day store, or nil
// (no interface holding a nil pointer) under a real map provider.
func world(days *sim.Days) api.WorldClock {
	if days == nil {
		return nil
	}
	return days
}
