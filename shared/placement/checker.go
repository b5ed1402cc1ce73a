package placement

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"golang.org/x/net/idna"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/upstream"
)

// Defaults of a Checker.
const (
	DefaultSeedTimeout = 30 * time.Second
	DefaultConcurrency = 4
	DefaultLookback    = 24 * time.Hour
)

// Per-folder and per-message bounds.
const (
	// MaxCandidates bounds the newest messages from the domain whose
	// envelopes are read in one folder.
	MaxCandidates = 50
	// MaxHeaderBytes bounds the Authentication-Results header block read
	// from the message found.
	MaxHeaderBytes = 16 << 10
	maxAuthHeaders = 8
	maxSubjectOut  = 200
)

// Dialer opens TCP connections (a net.Dialer; tests dial loopback).
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Checker checks where a message landed in its seed mailboxes. Its zero
// value with Seeds set is ready; it is safe for concurrent checks.
type Checker struct {
	Seeds []Seed
	// SeedTimeout bounds one seed's whole session, connection to logout
	// (default 30 s). Concurrency bounds the seeds checked at once
	// (default 4). Lookback is how far back a request without Since
	// looks (default 24 h).
	SeedTimeout time.Duration
	Concurrency int
	Lookback    time.Duration
	// TLSConfig is the base of every seed's TLS configuration (tests set
	// RootCAs); ServerName is the seed's host.
	TLSConfig *tls.Config
	Dialer    Dialer
	Now       func() time.Time
	// Source labels the results: SourceIMAP (default) or SourceSim.
	Source string
	// Prepare runs before each check (the Sim delivers its messages).
	Prepare func(ctx context.Context, req Request) error
}

// Check looks for the request's message in every seed. A seed failing
// is an error line of the Result; Check itself fails only on an invalid
// request (422), a Checker without seeds (503) or a failing Prepare.
func (c *Checker) Check(ctx context.Context, req Request) (Result, error) {
	req, err := NormalizeRequest(req)
	if err != nil {
		return Result{}, err
	}
	if len(c.Seeds) == 0 {
		return Result{}, apperr.New(apperr.Unavailable,
			"Aucune boîte de test n'est configurée pour delivery_check.", errNoSeeds.Error())
	}
	now := c.now()
	if req.Since.IsZero() {
		req.Since = now.Add(-c.lookback())
	}
	if c.Prepare != nil {
		if err := c.Prepare(ctx, req); err != nil {
			return Result{}, fmt.Errorf("prepare the check: %w", err)
		}
	}
	res := Result{
		Domain: req.Domain, SubjectFilter: req.SubjectFilter, Since: req.Since.UTC(), CheckedAt: now.UTC(),
		Source: c.Source, Seeds: make([]SeedResult, len(c.Seeds)),
	}
	if res.Source == "" {
		res.Source = SourceIMAP
	}
	workers := c.workers(ctx)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, s := range c.Seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
				res.Seeds[i] = c.checkSeed(ctx, s, req)
			case <-ctx.Done():
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					res.Seeds[i] = seedError(s, ErrTimeout, "the check's own time ran out before this mailbox", 0)
				} else {
					res.Seeds[i] = seedError(s, ErrCanceled, "the check was cancelled before this mailbox", 0)
				}
			}
		}()
	}
	wg.Wait()
	res.Summary = summarize(res.Seeds)
	res.DurationMS = c.now().Sub(now).Milliseconds()
	return res, nil
}

// workers is Concurrency, raised when the caller's deadline could not
// see every seed through otherwise: the engine gives a single-run job
// 120 s (engine.SingleTimeout), 50 seeds 4 at a time with 30 s each
// would need 390 s.
func (c *Checker) workers(ctx context.Context) int {
	w := c.Concurrency
	if w <= 0 {
		w = DefaultConcurrency
	}
	if d, ok := ctx.Deadline(); ok {
		if rem := time.Until(d); rem > 0 {
			need := int(math.Ceil(float64(len(c.Seeds)) * float64(c.seedTimeout()) / float64(rem)))
			w = max(w, min(need, len(c.Seeds)))
		}
	}
	return w
}

func (c *Checker) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Checker) lookback() time.Duration {
	if c.Lookback > 0 {
		return c.Lookback
	}
	return DefaultLookback
}

func (c *Checker) seedTimeout() time.Duration {
	if c.SeedTimeout > 0 {
		return c.SeedTimeout
	}
	return DefaultSeedTimeout
}

func seedError(s Seed, kind, msg string, ms int64) SeedResult {
	return SeedResult{Provider: s.Provider, Address: s.Address, Placement: PlacementError, Error: msg, ErrorKind: kind,
		DurationMS: ms}
}

// step names where a seed's session failed, for the error's kind.
type step int

const (
	stepConnect step = iota
	stepTLS
	stepLogin
	stepSession
)

// checkSeed runs one seed's session; it never panics out (a panic is a
// protocol error of that seed).
func (c *Checker) checkSeed(parent context.Context, s Seed, req Request) (out SeedResult) {
	start := time.Now()
	timeout := c.seedTimeout()
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	cur := stepConnect
	pre := 0 // commands sent before imapclient (STARTTLS)
	var w *wireConn
	commands := func() int {
		if w == nil {
			return pre
		}
		return pre + w.count()
	}
	defer func() {
		if p := recover(); p != nil {
			out = seedError(s, ErrProtocol, fmt.Sprintf("internal error: %v", p), 0)
		}
		out.DurationMS = time.Since(start).Milliseconds()
		out.Commands = commands()
	}()
	fail := func(err error) SeedResult {
		kind, msg := c.describe(ctx, parent, cur, err, timeout)
		return seedError(s, kind, redact(msg, s.Password), 0)
	}

	host, _, _ := net.SplitHostPort(s.Host)
	if s.TLS == TLSPlain && !upstream.Loopback(host) {
		// ParseSeeds refuses it too; a Seed built in code must not send a
		// password in clear over a network either.
		return seedError(s, ErrTLS, "TLS: plain IMAP is for loopback test servers only", 0)
	}
	dialer := c.Dialer
	if dialer == nil {
		dialer = &net.Dialer{}
	}
	raw, err := dialer.DialContext(ctx, "tcp", s.Host)
	if err != nil {
		return fail(err)
	}
	deadline, _ := ctx.Deadline()
	_ = raw.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { raw.Close() })
	defer stop()
	defer raw.Close()

	conn, err := c.secure(ctx, raw, s, host, &cur, &pre)
	if err != nil {
		return fail(err)
	}
	cur = stepSession
	w = &wireConn{Conn: conn, deadline: deadline}
	cl := imapclient.New(w, &imapclient.Options{WordDecoder: wordDecoder})
	defer cl.Close()

	if err := cl.WaitGreeting(); err != nil {
		return fail(err)
	}
	cur = stepLogin
	if err := cl.Login(s.Username, s.Password).Wait(); err != nil {
		return fail(err)
	}
	cur = stepSession
	sess := &seedSession{cl: cl, w: w, seed: s, req: req}
	out, err = sess.run()
	if err != nil {
		return fail(err)
	}
	// LOGOUT is a courtesy: its failure changes nothing.
	_ = cl.Logout().Wait()
	return out
}

// secure sets the seed's TLS up over raw: implicit, or STARTTLS after
// commands it adds to pre; plain IMAP keeps raw. It sets cur to the TLS
// step first, so that a failure is described as one.
func (c *Checker) secure(ctx context.Context, raw net.Conn, s Seed, host string, cur *step, pre *int) (net.Conn, error) {
	switch s.TLS {
	case TLSImplicit, "":
		*cur = stepTLS
		tc := tls.Client(raw, c.tlsConfig(host))
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, err
		}
		return tc, nil
	case TLSStartTLS:
		*cur = stepTLS
		tc, n, err := startTLS(ctx, raw, c.tlsConfig(host))
		*pre += n
		if err != nil {
			return nil, err
		}
		return tc, nil
	}
	return raw, nil
}

func (c *Checker) tlsConfig(host string) *tls.Config {
	var cfg *tls.Config
	if c.TLSConfig != nil {
		cfg = c.TLSConfig.Clone()
	} else {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	return cfg
}

// describe turns a seed's failure into its kind and message.
func (c *Checker) describe(ctx, parent context.Context, at step, err error, timeout time.Duration) (string, string) {
	var ie *imap.Error
	var cve *tls.CertificateVerificationError
	var uae x509.UnknownAuthorityError
	var hne x509.HostnameError
	var cie x509.CertificateInvalidError
	var rhe tls.RecordHeaderError
	var ae tls.AlertError
	var se *errSTARTTLS
	var ne net.Error
	switch {
	case errors.Is(parent.Err(), context.DeadlineExceeded):
		return ErrTimeout, "the check's own time ran out " + at.String()
	case parent.Err() != nil:
		return ErrCanceled, "the check was cancelled"
	case ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() ||
		pastDeadline(ctx) || strings.Contains(err.Error(), "i/o timeout"):
		// imapclient flattens some errors to text (the greeting's), and
		// the connection's deadline may fire just before the context's.
		return ErrTimeout, fmt.Sprintf("no answer within %s (%s)", timeout, at)
	case at == stepLogin && errors.As(err, &ie):
		return ErrAuth, "login refused: " + clip(ie.Text, 200)
	case errors.As(err, &cve), errors.As(err, &uae), errors.As(err, &hne), errors.As(err, &cie),
		errors.As(err, &rhe), errors.As(err, &ae), errors.As(err, &se):
		return ErrTLS, "TLS: " + clip(err.Error(), 300)
	case at == stepTLS:
		return ErrTLS, "TLS: " + clip(err.Error(), 300)
	case at == stepConnect:
		return ErrConnect, "connect: " + clip(err.Error(), 300)
	case errors.As(err, &ie):
		return ErrProtocol, fmt.Sprintf("server answered %s: %s", ie.Type, clip(ie.Text, 200))
	}
	return ErrProtocol, clip(err.Error(), 300)
}

func pastDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

func (s step) String() string {
	return [...]string{"connecting", "during TLS", "at login", "in the session"}[s]
}

// wordDecoder decodes RFC 2047 subjects in any charset the WHATWG index
// knows (windows-1252, iso-8859-15, ... as real mail uses).
var wordDecoder = &mime.WordDecoder{CharsetReader: func(charset string, input io.Reader) (io.Reader, error) {
	e, err := htmlindex.Get(charset)
	if err != nil {
		return nil, err
	}
	return e.NewDecoder().Reader(input), nil
}}

// seedSession is one logged-in seed's walk of its folders.
type seedSession struct {
	cl   *imapclient.Client
	w    *wireConn
	seed Seed
	req  Request

	selected string
	gmail    bool
	best     *candidate
	notes    []string
}

// candidate is the newest matching message of a folder.
type candidate struct {
	uid      imap.UID
	folder   planned
	at       time.Time
	from     string
	subject  string
	auth     AuthResults
	hasAuth  bool
	category string // Gmail's category when asked: "promotions" or ""
}

func (ss *seedSession) run() (SeedResult, error) {
	caps := ss.cl.Caps()
	ss.gmail = caps.Has(imap.Cap("X-GM-EXT-1"))
	folders, err := ss.list(caps)
	if err != nil {
		return SeedResult{}, err
	}
	p := classify(folders, ss.seed.Folders)
	for _, m := range p.Missing {
		ss.note(fmt.Sprintf("folder %q (configured) is not on the server", m))
	}
	out := SeedResult{Provider: ss.seed.Provider, Address: ss.seed.Address, Placement: PlacementNotFound}
	for _, f := range p.Mapped {
		if f.Class == classPromotions {
			out.PromotionsDetectable = true
		}
	}
	if ss.gmail {
		out.PromotionsDetectable = true
	}
	for _, f := range p.Mapped {
		if err := ss.search(f); err != nil {
			return SeedResult{}, err
		}
	}
	if ss.best == nil {
		for _, f := range p.Others {
			if err := ss.search(f); err != nil {
				return SeedResult{}, err
			}
		}
	}
	if b := ss.best; b != nil {
		out.Folder = b.folder.Name
		at := b.at.UTC()
		out.ReceivedAt = &at
		out.From, out.Subject = b.from, clip(b.subject, maxSubjectOut)
		switch b.folder.Class {
		case classInbox:
			out.Placement = PlacementInbox
			if b.category == "promotions" {
				out.Placement = PlacementPromotions
			}
		case classPromotions:
			out.Placement = PlacementPromotions
		case classSpam:
			out.Placement = PlacementSpam
		default:
			out.Placement = PlacementOtherPrefix + b.folder.Name
		}
		if b.hasAuth {
			out.SPF, out.DKIM, out.DMARC, out.AuthservID = b.auth.SPF, b.auth.DKIM, b.auth.DMARC, b.auth.AuthservID
		}
	}
	out.Notes = ss.notes
	return out, nil
}

func (ss *seedSession) note(n string) {
	if len(ss.notes) < 10 {
		ss.notes = append(ss.notes, clip(n, 300))
	}
}

// list reads the folders, with their SPECIAL-USE attributes when the
// server offers them (RFC 6154; Gmail sends them on every LIST).
func (ss *seedSession) list(caps imap.CapSet) ([]folder, error) {
	var opts *imap.ListOptions
	if caps.Has(imap.CapSpecialUse) && (caps.Has(imap.CapListExtended) || caps.Has(imap.CapIMAP4rev2)) {
		opts = &imap.ListOptions{ReturnSpecialUse: true}
	}
	cmd := ss.cl.List("", "*", opts)
	var out []folder
	for d := cmd.Next(); d != nil; d = cmd.Next() {
		if len(out) < MaxFolders {
			out = append(out, folder{Name: d.Mailbox, Delim: d.Delim, Attrs: d.Attrs})
		}
	}
	if err := cmd.Close(); err != nil {
		return nil, fmt.Errorf("LIST: %w", err)
	}
	return out, nil
}

// search looks for the request's message in one folder: EXAMINE (read
// only: nothing is marked seen), UID SEARCH SINCE the day before Since
// (SINCE has a day's grain in the server's time zone) FROM the domain,
// then the envelopes of the newest MaxCandidates UIDs, matched exactly
// here: From's domain, the subject, the receive time. A folder that
// cannot be opened is a note, not a failure.
func (ss *seedSession) search(f planned) error {
	sel, err := ss.cl.Select(f.Name, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		if isNo(err) {
			ss.note(fmt.Sprintf("folder %q cannot be opened: %v", f.Name, err))
			return nil
		}
		return fmt.Errorf("EXAMINE %s: %w", f.Name, err)
	}
	ss.selected = f.Name
	if sel.NumMessages == 0 {
		return nil
	}
	since := ss.req.Since.UTC()
	crit := &imap.SearchCriteria{
		Since:  time.Date(since.Year(), since.Month(), since.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1),
		Header: []imap.SearchCriteriaHeaderField{{Key: "From", Value: ss.req.Domain}},
	}
	data, err := ss.cl.UIDSearch(crit, nil).Wait()
	if err != nil {
		if isNo(err) {
			ss.note(fmt.Sprintf("folder %q cannot be searched: %v", f.Name, err))
			return nil
		}
		return fmt.Errorf("SEARCH %s: %w", f.Name, err)
	}
	uids := data.AllUIDs()
	if len(uids) == 0 {
		return nil
	}
	slices.SortFunc(uids, func(a, b imap.UID) int { return int(int64(b) - int64(a)) })
	if len(uids) > MaxCandidates {
		uids = uids[:MaxCandidates]
	}
	found, err := ss.newest(f, uids)
	if err != nil || found == nil {
		return err
	}
	if ss.best != nil && !found.at.After(ss.best.at) {
		return nil
	}
	if err := ss.details(found); err != nil {
		return err
	}
	ss.best = found
	return nil
}

// newest reads the candidates' envelopes and keeps the newest matching.
func (ss *seedSession) newest(f planned, uids []imap.UID) (*candidate, error) {
	cmd := ss.cl.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, InternalDate: true, Envelope: true})
	var best *candidate
	for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
		buf, err := msg.Collect()
		if err != nil {
			break // the command's error follows from Close
		}
		env := buf.Envelope
		if env == nil || buf.UID == 0 {
			continue
		}
		from, ok := matchFrom(env.From, ss.req.Domain)
		if !ok || !subjectMatches(env.Subject, ss.req.SubjectFilter) {
			continue
		}
		at := buf.InternalDate
		if at.IsZero() {
			at = env.Date
		}
		if at.Before(ss.req.Since) {
			continue
		}
		if best == nil || at.After(best.at) || at.Equal(best.at) && buf.UID > best.uid {
			best = &candidate{uid: buf.UID, folder: f, at: at, from: from, subject: env.Subject}
		}
	}
	if err := cmd.Close(); err != nil {
		return nil, fmt.Errorf("FETCH %s: %w", f.Name, err)
	}
	return best, nil
}

// details reads the message's Authentication-Results and, in a Gmail
// inbox, its category.
func (ss *seedSession) details(c *candidate) error {
	sec := &imap.FetchItemBodySection{
		Specifier: imap.PartSpecifierHeader, HeaderFields: []string{"Authentication-Results"}, Peek: true,
		Partial: &imap.SectionPartial{Offset: 0, Size: MaxHeaderBytes},
	}
	cmd := ss.cl.Fetch(imap.UIDSetNum(c.uid), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{sec}})
	for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
		for item := msg.Next(); item != nil; item = msg.Next() {
			body, ok := item.(imapclient.FetchItemDataBodySection)
			if !ok || body.Literal == nil {
				continue
			}
			block, err := io.ReadAll(io.LimitReader(body.Literal, MaxHeaderBytes))
			if err != nil {
				break
			}
			c.auth, c.hasAuth = PickAuthResults(headerValues(block, "Authentication-Results", maxAuthHeaders),
				ss.seed.AuthservID)
		}
	}
	if err := cmd.Close(); err != nil {
		return fmt.Errorf("FETCH header: %w", err)
	}
	if ss.gmail && c.folder.Class == classInbox {
		ss.gmailCategory(c)
	}
	return nil
}

// gmailCategory asks Gmail whether the message is in the Promotions tab:
// UID SEARCH UID <uid> X-GM-RAW "category:promotions". Gmail shows its
// tabs neither as folders nor as X-GM-LABELS; its web search operators,
// category: among them, are what X-GM-RAW accepts. A refusal is a note:
// the message stays inbox.
func (ss *seedSession) gmailCategory(c *candidate) {
	ss.w.armRaw(true)
	defer ss.w.armRaw(false)
	data, err := ss.cl.UIDSearch(&imap.SearchCriteria{
		UID:    []imap.UIDSet{imap.UIDSetNum(c.uid)},
		Header: []imap.SearchCriteriaHeaderField{{Key: gmRawKey, Value: "category:promotions"}},
	}, nil).Wait()
	if err != nil {
		ss.note("the Gmail category search failed (promotions not detected): " + err.Error())
		return
	}
	if slices.Contains(data.AllUIDs(), c.uid) {
		c.category = "promotions"
	}
}

func isNo(err error) bool {
	var ie *imap.Error
	return errors.As(err, &ie) && ie.Type == imap.StatusResponseTypeNo
}

// matchFrom returns the first From address at domain or a subdomain.
func matchFrom(from []imap.Address, domain string) (string, bool) {
	for _, a := range from {
		host := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(a.Host)), ".")
		if host == "" {
			continue
		}
		if h, err := idna.Lookup.ToASCII(host); err == nil {
			host = h
		}
		if host == domain || strings.HasSuffix(host, "."+domain) {
			return clip(a.Mailbox+"@"+a.Host, maxAddressLen), true
		}
	}
	return "", false
}

// subjectMatches tells whether the subject contains the filter, ignoring
// case and runs of white space (a folded subject).
func subjectMatches(subject, filter string) bool {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	return strings.Contains(norm(subject), norm(filter))
}
