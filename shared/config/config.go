// Package config reads the service's settings from the environment (the
// SVC_* variables of the design's local conventions).
package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is every setting the local server reads.
type Config struct {
	Addr            string
	DataDir         string
	BaseURL         string
	InvitationCodes []string
	AdminEmails     []string
	MailFrom        string
	CaptchaSecret   string
	CaptchaURL      string
	// CaptchaSiteKey is the captcha's public site key, which the web
	// console's signup page renders the widget with (SVC_CAPTCHA_SITE_KEY);
	// CaptchaScript is the widget's script (SVC_CAPTCHA_SCRIPT, Cloudflare
	// Turnstile's by default). docs/console.md.
	CaptchaSiteKey string
	CaptchaScript  string
	TrustedProxies []netip.Prefix
	SessionSecret  string // hex; generated into the data dir when empty
	LogLevel       string
	// EFQuota and EFCostThreshold override the EF model's defaults
	// (shared/pricing) when set: SVC_EF_QUOTA, SVC_EF_COST_THRESHOLD.
	EFQuota         *float64
	EFCostThreshold *float64
	// MapProvider is "sim" (the simulated world, the default) or "google"
	// (Places API (New), with GooglePlacesKey); SimLatency is the simulated
	// provider's delay per request.
	MapProvider     string
	GooglePlacesKey string
	SimLatency      time.Duration
	// GooglePlacesURL is the Places API's root (SVC_GOOGLE_PLACES_URL;
	// the public endpoint when empty): a recording proxy, a test's stand-in.
	GooglePlacesURL string
	// ProviderMaxInFlight and ProviderMaxPerSecond bound the map
	// provider's requests under way and started per second across every
	// process of the service (SVC_PROVIDER_MAX_IN_FLIGHT,
	// SVC_PROVIDER_MAX_PER_SECOND; provider/fleet, docs/provider-load.md).
	// Unset or 0 takes the provider's default: GoogleMaxInFlight and
	// GoogleMaxPerSecond for google; no bound for sim, which has no quota.
	ProviderMaxInFlight  int
	ProviderMaxPerSecond int
	// ChromiumPack is the directory of a serverless Chromium pack
	// (SVC_CHROMIUM_PACK; the AWS enrichment worker's layer), used for
	// screenshots when no Chromium is installed.
	ChromiumPack string
	// Sources are the data-source modules' upstreams (docs/data-sources.md).
	Sources Sources
	// ConsoleTiles is the web console's basemap, a tile URL template
	// (SVC_CONSOLE_TILES, docs/console.md); empty draws the zones'
	// outlines alone, which needs nothing from outside.
	ConsoleTiles string
}

// Sources configure the data-source modules. With SVC_DATA_SOURCES=sim
// (the default under the sim map provider) every module reads the sim
// world's twin of its source, labelled "sim" on its jobs; with "real" (the
// default under google) the configured upstreams.
type Sources struct {
	Mode string // sim or real
	// RegistersURL is the company-search API (SVC_REGISTERS_URL),
	// BodaccURL the BODACC open-data API (SVC_BODACC_URL), RegistersKey
	// an optional key (SVC_REGISTERS_KEY).
	RegistersURL, BodaccURL, RegistersKey string
	// OverpassURL is the OpenStreetMap Overpass API (SVC_OVERPASS_URL).
	OverpassURL string
	// PageSpeedURL (the API's root) and PageSpeedKey: PageSpeed Insights
	// v5 (SVC_PAGESPEED_URL, SVC_PAGESPEED_KEY).
	PageSpeedURL, PageSpeedKey string
	// SMTPProbe turns the SMTP dialogue of verify_emails on (SVC_SMTP_PROBE,
	// default on; the AWS stack sets it off: Lambda blocks port 25);
	// SMTPHelo and SMTPMailFrom are its EHLO name and MAIL FROM.
	SMTPProbe              bool
	SMTPHelo, SMTPMailFrom string
	// SMTPProxy is a SOCKS5 relay the probe dials through
	// (SVC_SMTP_PROXY, socks5://host:port): with one the probe runs even
	// where port 25 is blocked.
	SMTPProxy string
	// DeliverySeeds is the JSON of delivery_check's seed mailboxes
	// (SVC_DELIVERY_SEEDS; on AWS read from Secrets Manager).
	DeliverySeeds string
	// PhonePlanDir holds ARCEP's numbering-plan files for phone_info
	// (SVC_PHONE_PLAN_DIR: MAJNUM.csv and the operators' list).
	PhonePlanDir string
	// PhoneLookupURL is the root of phone_info's line lookup, an HLR API
	// (SVC_PHONE_LOOKUP_URL, hlr-lookups.com's v2 by default);
	// PhoneLookupKey and PhoneLookupSecret its credentials
	// (SVC_PHONE_LOOKUP_KEY, SVC_PHONE_LOOKUP_SECRET; on AWS read from
	// Secrets Manager). Without both, under real sources, no lookup is
	// made and phone_info's jobs say so.
	PhoneLookupURL, PhoneLookupKey, PhoneLookupSecret string
}

// The defaults of the provider's load under google: the Places API (New)
// grants a project 600 Text Search requests per minute unless raised
// (Cloud Console, Google Maps Platform > Quotas), 10 a second; 10 in
// flight keep that rate with a second of latency each.
const (
	GoogleMaxInFlight  = 10
	GoogleMaxPerSecond = 10
	// MaxProviderLimit bounds both settings (provider/fleet.MaxLimit).
	MaxProviderLimit = 1000
)

// FromEnv reads the configuration; getenv is os.Getenv outside tests.
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Addr:           or(getenv("SVC_ADDR"), "127.0.0.1:8080"),
		DataDir:        or(getenv("SVC_DATA_DIR"), "./.data"),
		MailFrom:       or(getenv("SVC_MAIL_FROM"), "Prospecting Data Service <no-reply@svc.localhost>"),
		CaptchaSecret:  getenv("SVC_CAPTCHA_SECRET"),
		CaptchaURL:     or(getenv("SVC_CAPTCHA_VERIFY_URL"), "https://challenges.cloudflare.com/turnstile/v0/siteverify"),
		CaptchaSiteKey: strings.TrimSpace(getenv("SVC_CAPTCHA_SITE_KEY")),
		CaptchaScript:  or(getenv("SVC_CAPTCHA_SCRIPT"), "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit"),
		SessionSecret:  getenv("SVC_SESSION_SECRET"),
		LogLevel:       or(getenv("SVC_LOG_LEVEL"), "info"),
	}
	c.BaseURL = strings.TrimRight(or(getenv("SVC_BASE_URL"), "http://"+c.Addr), "/")
	c.InvitationCodes = list(getenv("SVC_INVITATION_CODES"))
	c.AdminEmails = list(getenv("SVC_ADMIN_EMAILS"))
	tp, err := ParsePrefixes(getenv("SVC_TRUSTED_PROXIES"))
	if err != nil {
		return c, fmt.Errorf("SVC_TRUSTED_PROXIES: %w", err)
	}
	c.TrustedProxies = tp
	c.MapProvider = strings.ToLower(strings.TrimSpace(or(getenv("SVC_MAP_PROVIDER"), "sim")))
	c.GooglePlacesKey = strings.TrimSpace(getenv("SVC_GOOGLE_PLACES_KEY"))
	c.ChromiumPack = strings.TrimSpace(getenv("SVC_CHROMIUM_PACK"))
	c.ConsoleTiles = strings.TrimSpace(getenv("SVC_CONSOLE_TILES"))
	c.GooglePlacesURL = strings.TrimRight(strings.TrimSpace(getenv("SVC_GOOGLE_PLACES_URL")), "/")
	switch c.MapProvider {
	case "sim":
	case "google":
		if c.GooglePlacesKey == "" {
			return c, errors.New("SVC_MAP_PROVIDER=google needs SVC_GOOGLE_PLACES_KEY")
		}
	default:
		return c, fmt.Errorf("SVC_MAP_PROVIDER: %q is neither sim nor google", c.MapProvider)
	}
	if err := c.readSources(getenv); err != nil {
		return c, err
	}
	if err := c.readProviderLoad(getenv); err != nil {
		return c, err
	}
	c.SimLatency = 20 * time.Millisecond
	if v := strings.TrimSpace(getenv("SVC_SIM_LATENCY_MS")); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 || ms > 60_000 {
			return c, fmt.Errorf("SVC_SIM_LATENCY_MS: %q is not a number of milliseconds from 0 to 60000", v)
		}
		c.SimLatency = time.Duration(ms) * time.Millisecond
	}
	for _, v := range []struct {
		name string
		dst  **float64
	}{{"SVC_EF_QUOTA", &c.EFQuota}, {"SVC_EF_COST_THRESHOLD", &c.EFCostThreshold}} {
		raw := strings.TrimSpace(getenv(v.name))
		if raw == "" {
			continue
		}
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return c, fmt.Errorf("%s: %q is not a non-negative number of EF", v.name, raw)
		}
		*v.dst = &f
	}
	return c, nil
}

// ParsePrefixes reads a comma-separated list of addresses or prefixes.
func ParsePrefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list(v) {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, err2 := netip.ParseAddr(s)
			if err2 != nil {
				return nil, fmt.Errorf("%q is neither an address nor a prefix", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p)
	}
	return out, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// SessionKey returns the key that signs session cookies: SVC_SESSION_SECRET
// when set, else a random key kept in the data dir so that sessions survive
// a restart of the local server.
func (c Config) SessionKey() ([]byte, error) {
	if c.SessionSecret != "" {
		// Hex when it decodes as such (what the local generator writes), else
		// the raw characters (a generated Secrets Manager password on AWS).
		if k, err := hex.DecodeString(c.SessionSecret); err == nil && len(k) >= 32 {
			return k, nil
		}
		if len(c.SessionSecret) >= 32 {
			return []byte(c.SessionSecret), nil
		}
		return nil, errors.New("SVC_SESSION_SECRET must hold at least 32 bytes (64 hex digits or 32 characters)")
	}
	path := filepath.Join(c.DataDir, "session.key")
	if b, err := os.ReadFile(path); err == nil {
		if k, err := hex.DecodeString(strings.TrimSpace(string(b))); err == nil && len(k) >= 32 {
			return k, nil
		}
		return nil, fmt.Errorf("session key %s is unreadable", path)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("session key: %w", err)
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("session key: %w", err)
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(k)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("session key: %w", err)
	}
	return k, nil
}

func (c *Config) readSources(getenv func(string) string) error {
	def := "real"
	if c.MapProvider == "sim" {
		def = "sim"
	}
	s := Sources{
		Mode:          strings.ToLower(strings.TrimSpace(or(getenv("SVC_DATA_SOURCES"), def))),
		RegistersURL:  strings.TrimRight(or(getenv("SVC_REGISTERS_URL"), "https://recherche-entreprises.api.gouv.fr"), "/"),
		BodaccURL:     strings.TrimRight(or(getenv("SVC_BODACC_URL"), "https://bodacc-datadila.opendatasoft.com"), "/"),
		RegistersKey:  strings.TrimSpace(getenv("SVC_REGISTERS_KEY")),
		OverpassURL:   or(getenv("SVC_OVERPASS_URL"), "https://overpass-api.de/api/interpreter"),
		PageSpeedURL:  strings.TrimRight(or(getenv("SVC_PAGESPEED_URL"), "https://www.googleapis.com"), "/"),
		PageSpeedKey:  strings.TrimSpace(getenv("SVC_PAGESPEED_KEY")),
		SMTPHelo:      or(getenv("SVC_SMTP_HELO"), "verify.svc.localhost"),
		SMTPMailFrom:  or(getenv("SVC_SMTP_MAIL_FROM"), "verify@svc.localhost"),
		DeliverySeeds: getenv("SVC_DELIVERY_SEEDS"),
		SMTPProxy:     strings.TrimSpace(getenv("SVC_SMTP_PROXY")),
		PhonePlanDir:  strings.TrimSpace(getenv("SVC_PHONE_PLAN_DIR")),
	}
	s.PhoneLookupURL = strings.TrimSpace(getenv("SVC_PHONE_LOOKUP_URL"))
	s.PhoneLookupKey = strings.TrimSpace(getenv("SVC_PHONE_LOOKUP_KEY"))
	s.PhoneLookupSecret = strings.TrimSpace(getenv("SVC_PHONE_LOOKUP_SECRET"))
	switch s.Mode {
	case "sim", "real":
	default:
		return fmt.Errorf("SVC_DATA_SOURCES: %q is neither sim nor real", s.Mode)
	}
	switch v := strings.ToLower(strings.TrimSpace(or(getenv("SVC_SMTP_PROBE"), "on"))); v {
	case "on", "true", "1":
		s.SMTPProbe = true
	case "off", "false", "0":
	default:
		return fmt.Errorf("SVC_SMTP_PROBE: %q is neither on nor off", v)
	}
	c.Sources = s
	return nil
}

// readProviderLoad reads the provider's load limits, defaulting unset ones
// to the provider's own.
func (c *Config) readProviderLoad(getenv func(string) string) error {
	for _, v := range []struct {
		name   string
		dst    *int
		google int
	}{
		{"SVC_PROVIDER_MAX_IN_FLIGHT", &c.ProviderMaxInFlight, GoogleMaxInFlight},
		{"SVC_PROVIDER_MAX_PER_SECOND", &c.ProviderMaxPerSecond, GoogleMaxPerSecond},
	} {
		n := 0
		if raw := strings.TrimSpace(getenv(v.name)); raw != "" {
			var err error
			n, err = strconv.Atoi(raw)
			if err != nil || n < 0 || n > MaxProviderLimit {
				return fmt.Errorf("%s: %q is not a number from 0 to %d", v.name, raw, MaxProviderLimit)
			}
		}
		if n == 0 && c.MapProvider == "google" {
			n = v.google
		}
		*v.dst = n
	}
	return nil
}
