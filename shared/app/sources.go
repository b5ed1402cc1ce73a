package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/imports"
	"github.com/prospectdata/svc/shared/inproc"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/opendata"
	"github.com/prospectdata/svc/shared/opendata/opendatasim"
	"github.com/prospectdata/svc/shared/pagespeed"
	"github.com/prospectdata/svc/shared/pagespeed/pagespeedsim"
	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/phoneinfo/phoneinfosim"
	"github.com/prospectdata/svc/shared/placement"
	"github.com/prospectdata/svc/shared/placement/placementsim"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/registers"
	"github.com/prospectdata/svc/shared/registers/registerssim"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/verify"
)

// The data-source modules read upstreams other than the items' sites
// (docs/data-sources.md). Under SVC_DATA_SOURCES=real their clients go
// through the guard (public addresses only) to the configured addresses;
// under "sim" the same clients reach in-process twins built from the sim
// world, served under *.sim.test hosts by simHosts, and the modules name
// their source "sim".

// Hosts of the sim twins.
const (
	simPageSpeedHost = "pagespeed.sim.test"
	simRegistersHost = "registers.sim.test"
	simBodaccHost    = "bodacc.sim.test"
	simOverpassHost  = "overpass.sim.test"
	simPhoneLineHost = "phoneline.sim.test"
)

// sources holds what the data-source modules share.
type sources struct {
	cfg   config.Config
	sim   bool
	http  *http.Client // to the upstreams (or the twins)
	db    store.DB
	files blob.Store
	now   func() time.Time
	prov  *lazyProvider
	gaz   func() (*gazetteer.Gazetteer, error)
	log   *slog.Logger
	// agent is the User-Agent of the calls to public APIs.
	agent string

	delivery *deliveryRunner
	// importHosts checks an import's spreadsheet address (importHosts).
	importHosts imports.Hosts

	regOnce sync.Once
	reg     *registers.Client
	regErr  error
}

func newSources(cfg config.Config, guard *netguard.Guard, prov *lazyProvider, gaz func() (*gazetteer.Gazetteer, error),
	db store.DB, files blob.Store, now func() time.Time, log *slog.Logger) *sources {
	s := &sources{cfg: cfg, sim: cfg.Sources.Mode == "sim", db: db, files: files, now: now, prov: prov, gaz: gaz, log: log,
		agent: CrawlerAgent + "/1.0 (+" + cfg.BaseURL + "/bot; company data enrichment)"}
	s.delivery = &deliveryRunner{s: s}
	var tr http.RoundTripper = guard.Client(0).Transport
	if s.sim {
		reg := &worldHandler{prov: prov, make: func(w *sim.World) http.Handler { return registerssim.Handler(w.View()) }}
		tr = simHosts{handlers: map[string]http.Handler{
			simPageSpeedHost: pagespeedsim.Handler(),
			simRegistersHost: reg,
			simBodaccHost:    reg,
			simOverpassHost:  &worldHandler{prov: prov, make: func(w *sim.World) http.Handler { return opendatasim.Handler(w.View()) }},
			simPhoneLineHost: phoneinfosim.LineHandler(),
		}, prov: prov}
	}
	// The modules bound each call themselves (and the item's timeout
	// bounds them all); this is the last resort.
	s.http = &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	return s
}

// label is the source a module's jobs show: its own name, or "sim".
func (s *sources) label(real string) string {
	if s.sim {
		return "sim"
	}
	return real
}

func (s *sources) modules() []enrich.Module {
	var mods []enrich.Module
	psURL := s.cfg.Sources.PageSpeedURL
	if s.sim {
		psURL = "https://" + simPageSpeedHost
	}
	if c, err := pagespeed.NewClient(pagespeed.Config{BaseURL: psURL,
		APIKey: s.cfg.Sources.PageSpeedKey}, s.http); err != nil {
		s.log.Error("pagespeed: not configured", "err", err)
	} else {
		mods = append(mods, enrich.PageSpeedModule(c, s.label("PageSpeed Insights")))
	}
	mods = append(mods, s.verifyModule())
	ocfg := opendata.Config{OverpassURL: s.cfg.Sources.OverpassURL, UserAgent: s.agent}
	if s.sim {
		// The twin needs none of the public instance's etiquette.
		ocfg.OverpassURL, ocfg.Interval, ocfg.MaxConcurrent = "https://"+simOverpassHost+"/api/interpreter", -1, 8
	}
	if c, err := opendata.New(ocfg, s.http); err != nil {
		s.log.Error("opendata: not configured", "err", err)
	} else {
		mods = append(mods, enrich.OpendataModule(c, s.label("openstreetmap")))
	}
	if c, err := s.registers(); err != nil {
		s.log.Error("legal_data: not configured", "err", err)
	} else {
		mods = append(mods, enrich.LegalDataModule(c, s.label("recherche-entreprises.api.gouv.fr + BODACC")))
	}
	mods = append(mods, s.phoneInfoModule())
	return mods
}

// phoneInfoModule is phone_info over the numbering plan, the per-number
// cache in the accounts table (its items expire with the table's TTL
// attribute "ttl" once too old to be read) and the line lookup, when
// there is one: a number is looked up at most once per LineTTL.
func (s *sources) phoneInfoModule() enrich.Module {
	d := phoneinfo.Deps{Plan: s.phonePlan(), Cache: phoneinfo.StoreCacheTTL(s.db.Table(accounts.Table), "ttl", phoneinfo.LineTTL),
		Source: s.label(""), Log: s.log}
	if l := s.phoneLookup(); l != nil {
		d.Lookup, d.MaxAge = l, phoneinfo.LineTTL
	}
	return enrich.PhoneInfoModule(d)
}

// phoneLookup is phone_info's line lookup: the sim twin under sim
// sources, the HLR API when SVC_PHONE_LOOKUP_KEY and _SECRET are set,
// none otherwise (every phone_info job's log then says the live columns
// are left empty).
func (s *sources) phoneLookup() phoneinfo.LineLookup {
	src := s.cfg.Sources
	cfg := phoneinfo.HLRConfig{BaseURL: src.PhoneLookupURL, Key: src.PhoneLookupKey, Secret: src.PhoneLookupSecret}
	if s.sim {
		// The twin checks the real client's signature with its own
		// credentials.
		cfg = phoneinfo.HLRConfig{BaseURL: "https://" + simPhoneLineHost + "/api/v2",
			Key: phoneinfosim.LineKey, Secret: phoneinfosim.LineSecret}
	} else if cfg.Key == "" && cfg.Secret == "" {
		return nil
	}
	c, err := phoneinfo.NewHLRClient(cfg, s.http)
	if err != nil {
		s.log.Error("phone_info: line lookup not configured", "err", err)
		return nil
	}
	return c
}

// registers is the company-registers client of legal_data, sirene and
// the company lookup: one per process (it paces its calls to the API's
// rate limit).
func (s *sources) registers() (*registers.Client, error) {
	s.regOnce.Do(func() {
		src := s.cfg.Sources
		cfg := registers.Config{SearchURL: src.RegistersURL, BodaccURL: src.BodaccURL, APIKey: src.RegistersKey}
		var clock registers.Clock
		if s.sim {
			cfg.SearchURL, cfg.BodaccURL = "https://"+simRegistersHost, "https://"+simBodaccHost
			// The twin publishes up to the world's day: "the last 12
			// months" are the world's.
			clock = simClock{prov: s.prov}
		}
		s.reg, s.regErr = registers.New(registers.Deps{Config: cfg, HTTP: s.http, Clock: clock, Gazetteer: s.gaz})
	})
	return s.reg, s.regErr
}

// companies is the company lookup of the API (nil when the client
// cannot be built: the routes answer 503).
func (s *sources) companies() api.Companies {
	c, err := s.registers()
	if err != nil {
		s.log.Error("company lookup: not configured", "err", err)
		return nil
	}
	return c
}

// deliveryRunner runs delivery_check jobs over the seed mailboxes: those
// of SVC_DELIVERY_SEEDS, or the sim twin's loopback IMAP servers, started
// on the first check and kept for the process's life.
type deliveryRunner struct {
	s    *sources
	once sync.Once
	c    *placement.Checker
	err  error
}

func (r *deliveryRunner) checker() (*placement.Checker, error) {
	r.once.Do(func() {
		if r.s.sim {
			sim, err := placementsim.New(context.Background())
			if err != nil {
				r.err = err
				return
			}
			r.c = sim.Checker()
			return
		}
		seeds, err := placement.ParseSeeds(r.s.cfg.Sources.DeliverySeeds)
		if err != nil {
			r.err = err
			return
		}
		r.c = &placement.Checker{Seeds: seeds}
	})
	return r.c, r.err
}

// Ready tells whether checks can run here: the sim twin, or seeds
// configured (the route answers 503 otherwise, before charging).
func (r *deliveryRunner) Ready() bool {
	if r.s.sim {
		return true
	}
	seeds, err := placement.ParseSeeds(r.s.cfg.Sources.DeliverySeeds)
	return err == nil && len(seeds) > 0
}

func (r *deliveryRunner) Run(ctx context.Context, j *jobs.Job) (any, int, error) {
	var req placement.Request
	if err := json.Unmarshal(j.Params, &req); err != nil {
		return nil, 0, fmt.Errorf("delivery parameters: %w", err)
	}
	c, err := r.checker()
	if err != nil {
		return nil, 0, err
	}
	// The message was sent before the job: look back a day from it.
	req.Since = j.Created.Add(-placement.DefaultLookback)
	res, err := c.Check(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	return res, res.Found(), nil
}

// SireneBudget bounds a sirene job's search: within the sources worker's
// 15 minutes (engine.RowsTimeout), with room to write the output. At the
// registers API's pace 50,000 rows take about 5 minutes.
const SireneBudget = 12 * time.Minute

// simClock is the sim world's registers clock, once the world is loaded.
type simClock struct{ prov *lazyProvider }

func (c simClock) clock() registers.Clock {
	if p, err := c.prov.get(); err == nil {
		if w, ok := p.(*sim.World); ok {
			return registerssim.Clock(w.View())
		}
	}
	return registers.SystemClock{}
}

func (c simClock) Now() time.Time { return c.clock().Now() }
func (c simClock) Sleep(ctx context.Context, d time.Duration) error {
	return c.clock().Sleep(ctx, d)
}

// worldHandler is a twin built from the sim world on its first request
// (one per process: a twin may keep an index of what it served).
type worldHandler struct {
	prov *lazyProvider
	make func(*sim.World) http.Handler
	once sync.Once
	h    http.Handler
	err  error
}

func (h *worldHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.once.Do(func() {
		p, err := h.prov.get()
		if err != nil {
			h.err = err
			return
		}
		world, ok := p.(*sim.World)
		if !ok {
			h.err = fmt.Errorf("the map provider is %s, not the sim world", p.Name())
			return
		}
		h.h = h.make(world)
	})
	if h.err != nil {
		http.Error(w, h.err.Error(), http.StatusServiceUnavailable)
		return
	}
	h.h.ServeHTTP(w, r)
}

// verifyModule is verify_emails over DNS and the domains' mail servers,
// or over the sim world's mail. One checker per process: its caches (a
// domain's MX and catch-all probe) span the jobs.
func (s *sources) verifyModule() enrich.Module {
	src := s.cfg.Sources
	opt := verify.Options{HeloName: src.SMTPHelo, MailFrom: src.SMTPMailFrom, SkipSMTP: !src.SMTPProbe}
	if src.SMTPProxy != "" {
		d, err := verify.ProxyDialer(src.SMTPProxy)
		if err != nil {
			s.log.Error("verify_emails: SVC_SMTP_PROXY", "err", err)
		} else {
			opt.Dialer, opt.SkipSMTP = d, false
		}
	}
	if s.sim {
		m := simMail{prov: s.prov}
		opt = verify.Options{Resolver: m, Dialer: m, AllowPrefixes: sim.MailPrefixes()}
		return enrich.VerifyModule(verify.New(opt), "sim")
	}
	label := "dns+smtp"
	if opt.SkipSMTP {
		label = "dns"
	}
	return enrich.VerifyModule(verify.New(opt), label)
}

// simMail is the sim world's mail, reached once the world is loaded (the
// world loads on its first use, not when the modules are built).
type simMail struct{ prov *lazyProvider }

func (m simMail) mail() (*sim.Mail, error) {
	p, err := m.prov.get()
	if err != nil {
		return nil, err
	}
	w, ok := p.(*sim.World)
	if !ok {
		return nil, fmt.Errorf("sim mail: the map provider is %s", p.Name())
	}
	return w.Mail(), nil
}

func (m simMail) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	ml, err := m.mail()
	if err != nil {
		return nil, err
	}
	return ml.LookupMX(ctx, name)
}

func (m simMail) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	ml, err := m.mail()
	if err != nil {
		return nil, err
	}
	return ml.LookupIPAddr(ctx, host)
}

func (m simMail) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	ml, err := m.mail()
	if err != nil {
		return nil, err
	}
	return ml.DialContext(ctx, network, addr)
}

// phonePlan is the numbering plan of phone_info: ARCEP's files when
// SVC_PHONE_PLAN_DIR names them, the sim world's ranges offline, none
// otherwise (the operator columns stay empty, never invented).
func (s *sources) phonePlan() phoneinfo.Plan {
	if s.sim {
		return phoneinfosim.Plan()
	}
	dir := s.cfg.Sources.PhonePlanDir
	if dir == "" {
		if s.files == nil {
			return nil
		}
		// Seeded by an admin (POST /api/admin/phone-plan) into the file
		// store, where every runtime's workers read it.
		return &phoneinfo.StoredPlan{Files: s.files, Now: s.now}
	}
	blocks, err := os.Open(filepath.Join(dir, "MAJNUM.csv"))
	if err != nil {
		s.log.Error("phone_info: numbering plan", "err", err)
		return nil
	}
	defer blocks.Close()
	ops, err := os.Open(filepath.Join(dir, "identifiants_CE.csv"))
	if err != nil {
		s.log.Error("phone_info: operators", "err", err)
		return nil
	}
	defer ops.Close()
	p, err := phoneinfo.LoadARCEP(blocks, ops)
	if err != nil {
		s.log.Error("phone_info: numbering plan", "err", err)
		return nil
	}
	return p
}

// simHosts answers the twins' hosts in process.
type simHosts struct {
	handlers map[string]http.Handler
	prov     *lazyProvider
}

func (h simHosts) RoundTrip(req *http.Request) (*http.Response, error) {
	hd, ok := h.handlers[strings.ToLower(req.URL.Hostname())]
	if !ok {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("sim sources: no twin answers %s", req.URL.Host)
	}
	return inproc.HandlerTransport(hd).RoundTrip(req)
}
