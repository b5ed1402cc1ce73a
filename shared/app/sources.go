package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/pagespeed"
	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/store"
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
)

// sources holds what the data-source modules share.
type sources struct {
	cfg  config.Config
	sim  bool
	http *http.Client // to the upstreams (or the twins)
	db   store.DB
	log  *slog.Logger
}

func newSources(cfg config.Config, guard *netguard.Guard, prov *lazyProvider, db store.DB, log *slog.Logger) *sources {
	s := &sources{cfg: cfg, sim: cfg.Sources.Mode == "sim", db: db, log: log}
	var tr http.RoundTripper = guard.Client(0).Transport
	if s.sim {
		tr = simHosts{handlers: map[string]http.Handler{
			simPageSpeedHost: pagespeed.SimHandler(),
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
		mods = append(mods, pagespeed.Module(c, s.label("PageSpeed Insights")))
	}
	mods = append(mods, phoneinfo.Module(phoneinfo.Deps{Plan: s.phonePlan(), Cache: phoneinfo.StoreCache(s.db.Table(accounts.Table)),
		Source: s.label("")}))
	return mods
}

// phonePlan is the numbering plan of phone_info: ARCEP's files when
// SVC_PHONE_PLAN_DIR names them, the sim world's ranges offline, none
// otherwise (the operator columns stay empty, never invented).
func (s *sources) phonePlan() phoneinfo.Plan {
	if s.sim {
		return phoneinfo.SimPlan()
	}
	dir := s.cfg.Sources.PhonePlanDir
	if dir == "" {
		return nil
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
	return serveInProcess(req, hd), nil
}

// serveInProcess runs a handler over a request and returns its answer.
func serveInProcess(req *http.Request, h http.Handler) *http.Response {
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	h.ServeHTTP(rec, req.Clone(context.WithoutCancel(req.Context())))
	return &http.Response{
		Status: fmt.Sprintf("%d %s", rec.status, http.StatusText(rec.status)), StatusCode: rec.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: rec.header,
		Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())), ContentLength: int64(rec.body.Len()), Request: req,
	}
}

type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}
