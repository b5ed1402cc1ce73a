package main

import (
	"fmt"
	"net/mail"
	"strconv"
	"strings"

	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/prospectdata/svc/shared/config"
)

// settings are the deploy-time knobs of the stack, read from CDK context
// (cdk.json, or -c key=value on the command line) so that one template
// serves every environment and synth stays offline.
type settings struct {
	// AssetDir holds the <group>.zip artifacts of `make build`. Relative paths
	// are relative to infra/, where cdk.json runs the app.
	AssetDir string
	// BaseURL is the public origin mailed links point to; "" means the HTTP
	// API's own endpoint.
	BaseURL string
	// MailFrom is the From header of every mail (SVC_MAIL_FROM).
	MailFrom string
	// MailDomain is the SES identity mail is sent as; by default the domain
	// of MailFrom's address, so that the two cannot disagree.
	MailDomain string
	// SESIdentityARN scopes the SES grant; "" means the identity of
	// MailDomain in the stack's account and region.
	SESIdentityARN string
	// InvitationCodes and AdminEmails are comma-separated lists, passed
	// verbatim (SVC_INVITATION_CODES, SVC_ADMIN_EMAILS).
	InvitationCodes string
	AdminEmails     string
	// ConsoleTiles is the web console's basemap, a tile URL template
	// (SVC_CONSOLE_TILES locally); "" draws the zones' outlines alone.
	ConsoleTiles string
	// Console puts the web console on a CloudFront distribution in front
	// of the API (the default). LocalStack's community edition has no
	// CloudFront: its recipe passes false, and the console is then served
	// nowhere (the API alone, at its endpoint).
	Console bool
	// MapProvider is SVC_MAP_PROVIDER of the functions that create or run
	// jobs: "sim" (the simulated world, the default) or "google" (Places
	// API (New), its key in the stack's GooglePlacesSecret).
	MapProvider string
	// DataSources is SVC_DATA_SOURCES of every function: "sim" or "real";
	// by default "sim" under the sim provider and "real" under google,
	// as shared/config does. The sim sources are twins of the sim world,
	// so google with sim sources is refused.
	DataSources string
	// ProviderMaxInFlight and ProviderMaxPerSecond bound the requests to
	// the map provider across every concurrent invocation
	// (SVC_PROVIDER_MAX_IN_FLIGHT, SVC_PROVIDER_MAX_PER_SECOND, read by
	// the shared limiter); the first also caps worker-tasks' concurrency.
	ProviderMaxInFlight  int
	ProviderMaxPerSecond int
	// WorkerMaxConcurrency caps the concurrency of every other queue-fed
	// worker (the SQS event source's maximum concurrency), so that the
	// workers cannot take the account's concurrency from the API
	// functions.
	WorkerMaxConcurrency int
	// AlarmEmail subscribes an address to the alarms' SNS topic; "" means
	// no subscription.
	AlarmEmail string
	// S3PathStyle sets SVC_S3_PATH_STYLE=1 on the functions using the
	// bucket: path-style addressing, which LocalStack needs; AWS takes the
	// default virtual-hosted style.
	S3PathStyle bool
}

// Context keys and their defaults. cdk.json repeats the defaults so that the
// knobs are visible there; a test checks that the two agree.
const (
	ctxAssetDir        = "assetDir"
	ctxBaseURL         = "baseUrl"
	ctxMailFrom        = "mailFrom"
	ctxMailDomain      = "mailDomain"
	ctxSESIdentityARN  = "sesIdentityArn"
	ctxInvitationCodes = "invitationCodes"
	ctxAdminEmails     = "adminEmails"
	ctxDataSources     = "dataSources"
	ctxMapProvider     = "mapProvider"
	ctxMaxInFlight     = "providerMaxInFlight"
	ctxMaxPerSecond    = "providerMaxPerSecond"
	ctxWorkerMax       = "workerMaxConcurrency"
	ctxAlarmEmail      = "alarmEmail"
	ctxConsoleTiles    = "consoleTiles"
	ctxConsole         = "console"
	ctxS3PathStyle     = "s3PathStyle"

	defaultAssetDir = "../dist"
	// The local server's default sender (shared/config), so that the
	// LocalStack walk needs no override; a real deployment sets its own.
	defaultMailFrom = "Prospecting Data Service <no-reply@svc.localhost>"

	// Places API (New) quotas are per minute, per method and per project;
	// Text Search's default is 600 requests per minute (Cloud console,
	// Google Maps Platform > Quotas). 8 per second is 480 per minute: 80 %
	// of it, leaving room for the project's other callers and for the
	// limiter's per-second granularity. At Text Search's usual latency
	// (well under 2 s) 8 per second keeps about 16 requests in flight.
	// docs/aws.md, "Provider load".
	defaultMaxInFlight  = 16
	defaultMaxPerSecond = 8
	// Five queue-fed workers at 10 (worker-tasks at providerMaxInFlight)
	// hold at most 56 of the account's 1,000 default concurrent
	// executions, the rest staying with the API functions.
	defaultWorkerMax = 10
)

// Bounds of the numeric settings: SQS event sources take a maximum
// concurrency from 2 to 1,000; the service reads provider limits up to
// config.MaxProviderLimit.
const (
	minConcurrency = 2
	maxConcurrency = 1000
)

// contextDefaults are the values a key takes when the context omits it
// ("" for keys whose default is computed).
func contextDefaults() map[string]string {
	return map[string]string{
		ctxAssetDir:        defaultAssetDir,
		ctxBaseURL:         "",
		ctxMailFrom:        defaultMailFrom,
		ctxMailDomain:      "",
		ctxSESIdentityARN:  "",
		ctxInvitationCodes: "",
		ctxAdminEmails:     "",
		ctxDataSources:     "",
		ctxMapProvider:     "sim",
		ctxMaxInFlight:     strconv.Itoa(defaultMaxInFlight),
		ctxMaxPerSecond:    strconv.Itoa(defaultMaxPerSecond),
		ctxWorkerMax:       strconv.Itoa(defaultWorkerMax),
		ctxAlarmEmail:      "",
		ctxConsoleTiles:    "",
		ctxConsole:         "true",
		ctxS3PathStyle:     "false",
	}
}

// contextString is a context value as a string: cdk.json holds strings,
// numbers for the numeric keys, a boolean for s3PathStyle, or (for codes
// and emails) lists of strings; -c on the command line gives strings.
func contextString(key string, v any) (string, error) {
	numeric := key == ctxMaxInFlight || key == ctxMaxPerSecond || key == ctxWorkerMax
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v), nil
	case float64:
		if !numeric {
			return "", fmt.Errorf("context %s: want a string, got the number %v", key, v)
		}
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case bool:
		if key != ctxS3PathStyle && key != ctxConsole {
			return "", fmt.Errorf("context %s: want a string, got %v", key, v)
		}
		return strconv.FormatBool(v), nil
	case []any:
		// cdk.json may list codes or emails as a JSON array.
		parts := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("context %s: list element %v is not a string", key, e)
			}
			parts = append(parts, strings.TrimSpace(s))
		}
		return strings.Join(parts, ","), nil
	default:
		return "", fmt.Errorf("context %s: want a string, got %T", key, v)
	}
}

// readSettings reads the context of node, applying the defaults.
func readSettings(node constructs.Node) (settings, error) {
	get := func(key string) (string, error) {
		v := node.TryGetContext(jsii.String(key))
		if v == nil {
			return contextDefaults()[key], nil
		}
		return contextString(key, v)
	}
	var s settings
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{
		{ctxAssetDir, &s.AssetDir},
		{ctxBaseURL, &s.BaseURL},
		{ctxMailFrom, &s.MailFrom},
		{ctxMailDomain, &s.MailDomain},
		{ctxSESIdentityARN, &s.SESIdentityARN},
		{ctxInvitationCodes, &s.InvitationCodes},
		{ctxAdminEmails, &s.AdminEmails},
		{ctxDataSources, &s.DataSources},
		{ctxMapProvider, &s.MapProvider},
		{ctxAlarmEmail, &s.AlarmEmail},
		{ctxConsoleTiles, &s.ConsoleTiles},
	} {
		if *f.dst, err = get(f.key); err != nil {
			return s, err
		}
	}
	if s.AssetDir == "" {
		s.AssetDir = defaultAssetDir
	}
	if s.MailFrom == "" {
		s.MailFrom = defaultMailFrom
	}
	s.BaseURL = strings.TrimRight(s.BaseURL, "/")
	if s.MailDomain == "" {
		a, err := mail.ParseAddress(s.MailFrom)
		if err != nil {
			return s, fmt.Errorf("context %s %q: %w", ctxMailFrom, s.MailFrom, err)
		}
		s.MailDomain = a.Address[strings.LastIndexByte(a.Address, '@')+1:]
	}
	switch s.MapProvider {
	case "":
		s.MapProvider = "sim"
	case "sim", "google":
	default:
		return s, fmt.Errorf("context %s %q is neither sim nor google", ctxMapProvider, s.MapProvider)
	}
	switch s.DataSources {
	case "":
		s.DataSources = map[string]string{"sim": "sim", "google": "real"}[s.MapProvider]
	case "sim", "real":
	default:
		return s, fmt.Errorf("context %s %q is neither sim nor real", ctxDataSources, s.DataSources)
	}
	if s.MapProvider == "google" && s.DataSources == "sim" {
		return s, fmt.Errorf("context %s sim needs %s sim: the sim data sources are twins of the simulated world", ctxDataSources, ctxMapProvider)
	}
	for _, n := range []struct {
		key      string
		dst      *int
		min, max int
	}{
		{ctxMaxInFlight, &s.ProviderMaxInFlight, 1, min(maxConcurrency, config.MaxProviderLimit)},
		{ctxMaxPerSecond, &s.ProviderMaxPerSecond, 1, config.MaxProviderLimit},
		{ctxWorkerMax, &s.WorkerMaxConcurrency, minConcurrency, maxConcurrency},
	} {
		raw, err := get(n.key)
		if err != nil {
			return s, err
		}
		if raw == "" {
			raw = contextDefaults()[n.key]
		}
		v, err := strconv.Atoi(raw)
		if err != nil || v < n.min || v > n.max {
			return s, fmt.Errorf("context %s %q is not a whole number from %d to %d", n.key, raw, n.min, n.max)
		}
		*n.dst = v
	}
	raw, err := get(ctxS3PathStyle)
	if err != nil {
		return s, err
	}
	if s.S3PathStyle, err = strconv.ParseBool(or(raw, "false")); err != nil {
		return s, fmt.Errorf("context %s %q is neither true nor false", ctxS3PathStyle, raw)
	}
	if raw, err = get(ctxConsole); err != nil {
		return s, err
	}
	if s.Console, err = strconv.ParseBool(or(raw, "true")); err != nil {
		return s, fmt.Errorf("context %s %q is neither true nor false", ctxConsole, raw)
	}
	if s.AlarmEmail != "" {
		a, err := mail.ParseAddress(s.AlarmEmail)
		if err != nil || a.Name != "" || a.Address != s.AlarmEmail {
			return s, fmt.Errorf("context %s %q is not a plain email address", ctxAlarmEmail, s.AlarmEmail)
		}
	}
	if s.SESIdentityARN != "" && !strings.HasPrefix(s.SESIdentityARN, "arn:") {
		return s, fmt.Errorf("context %s %q is not an ARN", ctxSESIdentityARN, s.SESIdentityARN)
	}
	return s, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
