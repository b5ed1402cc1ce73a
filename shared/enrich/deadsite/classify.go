package deadsite

import (
	"net/url"
	"strconv"

	"github.com/prospectdata/svc/shared/crawl"
)

// Probe is what the fetcher learned about a site's home page.
type Probe struct {
	// DNSErr: the host does not resolve (no such host, SERVFAIL).
	DNSErr error
	// TLSErr: the certificate is invalid, expired or for another host.
	TLSErr error
	// ConnErr: the connection was refused, reset or timed out.
	ConnErr error
	// Status is the final HTTP status (0 when none came).
	Status int
	// Page is the final page, nil when none was fetched.
	Page *crawl.Page
	// Redirected is where the site's redirects led, when they did.
	Redirected *url.URL
}

// Verdict is the site_alive column and why.
type Verdict struct {
	Alive bool
	// Reason is one of the Reason* constants, or "http_<code>".
	Reason string
}

// Reasons of a verdict.
const (
	ReasonOK                = "ok"
	ReasonDNS               = "dns"
	ReasonTLS               = "tls"
	ReasonConnection        = "connection"
	ReasonParked            = "parked"
	ReasonForSale           = "for_sale"
	ReasonDefaultPage       = "default_page"
	ReasonSuspended         = "suspended"
	ReasonUnderConstruction = "under_construction"
	ReasonEmpty             = "empty"
	ReasonOffsiteParking    = "redirect_offsite_parking"
)

// HTTPReason is the reason of an error status: "http_404", "http_503".
func HTTPReason(status int) string { return "http_" + strconv.Itoa(status) }

// Classify decides whether the probed site is alive. Order: no answer at
// all (dns, connection), a redirect to a parking or domain-sale host, what
// the page says (suspended, for sale, parked, default page, under
// construction), a bot challenge or a maintenance page (alive), the
// status code, an empty page, then a TLS error. See the package doc for the choices.
func Classify(p Probe) Verdict {
	switch {
	case p.DNSErr != nil:
		return Verdict{Reason: ReasonDNS}
	case p.ConnErr != nil:
		return Verdict{Reason: ReasonConnection}
	}
	if parkingHost(p.Redirected) || (p.Page != nil && parkingHost(p.Page.URL)) {
		return Verdict{Reason: ReasonOffsiteParking}
	}
	status := p.Status
	if status == 0 && p.Page != nil {
		status = p.Page.Status
	}
	if p.Page == nil {
		switch {
		case p.TLSErr != nil:
			return Verdict{Reason: ReasonTLS}
		case status >= 400:
			return Verdict{Reason: HTTPReason(status)}
		}
		return Verdict{Reason: ReasonEmpty}
	}
	s := read(p.Page)
	if reason := s.match(); reason != "" {
		return Verdict{Reason: reason}
	}
	if s.challenge(p.Page, status) || s.maintenance() {
		return alive(p)
	}
	if status >= 400 {
		return Verdict{Reason: HTTPReason(status)}
	}
	if status == 204 || s.empty() {
		return Verdict{Reason: ReasonEmpty}
	}
	return alive(p)
}

// alive is the verdict of a site that shows something, unless its
// certificate stops the visitor first.
func alive(p Probe) Verdict {
	if p.TLSErr != nil {
		return Verdict{Reason: ReasonTLS}
	}
	return Verdict{Alive: true, Reason: ReasonOK}
}
