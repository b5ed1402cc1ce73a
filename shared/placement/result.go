package placement

import (
	"math"
	"strings"
	"time"
)

// Placements of a seed's result.
const (
	PlacementInbox      = "inbox"
	PlacementPromotions = "promotions"
	PlacementSpam       = "spam"
	// PlacementOtherPrefix starts "other:<folder>": the message is in a
	// folder that is none of the mapped ones (a filter moved it, it was
	// trashed, a user label).
	PlacementOtherPrefix = "other:"
	PlacementNotFound    = "not_found"
	PlacementError       = "error"
)

// Sources of a result.
const (
	SourceIMAP = "imap" // the configured seed mailboxes
	SourceSim  = "sim"  // the in-process twin (Sim): simulated placements
)

// Kinds of a seed's error.
const (
	ErrConnect  = "connect"  // DNS, refused, unreachable
	ErrTLS      = "tls"      // handshake, certificate, STARTTLS refused
	ErrAuth     = "auth"     // LOGIN refused
	ErrTimeout  = "timeout"  // the seed's timeout ran out
	ErrProtocol = "protocol" // the server answered something unusable
	ErrCanceled = "canceled" // the check was cancelled
)

// Result is the document of a delivery check (GET
// /api/jobs/{id}/delivery-result).
type Result struct {
	Domain        string `json:"domain"`
	SubjectFilter string `json:"subject_filter"`
	// Since is the earliest receive time a message may have.
	Since     time.Time `json:"since"`
	CheckedAt time.Time `json:"checked_at"`
	// Source is "imap", or "sim" when the seeds are the simulated twin's.
	Source     string       `json:"source"`
	DurationMS int64        `json:"duration_ms"`
	Seeds      []SeedResult `json:"seeds"`
	Summary    Summary      `json:"summary"`
}

// SeedResult is one seed mailbox's line.
type SeedResult struct {
	Provider string `json:"provider"`
	Address  string `json:"address"`
	// Placement is inbox, promotions, spam, other:<folder>, not_found or
	// error.
	Placement string `json:"placement"`
	// Folder is the IMAP folder the message is in ("" when not found).
	Folder string `json:"folder,omitempty"`
	// ReceivedAt is the server's receive time (INTERNALDATE), or the
	// message's Date when the server gives none.
	ReceivedAt *time.Time `json:"received_at,omitempty"`
	// From and Subject of the message found (the subject cut to 200
	// characters).
	From    string `json:"from,omitempty"`
	Subject string `json:"subject,omitempty"`
	// SPF, DKIM and DMARC are the receiving provider's verdicts from the
	// message's Authentication-Results header (pass, fail, softfail,
	// neutral, none, temperror, permerror, policy); absent when the
	// header does not report the method or there is no header.
	SPF   string `json:"spf,omitempty"`
	DKIM  string `json:"dkim,omitempty"`
	DMARC string `json:"dmarc,omitempty"`
	// AuthservID names the service whose header was read.
	AuthservID string `json:"authserv_id,omitempty"`
	// PromotionsDetectable says whether this mailbox can tell promotions
	// from inbox: a Gmail server (X-GM-EXT-1, the category search) or a
	// promotions folder. When false, a promotional message shows as
	// inbox.
	PromotionsDetectable bool `json:"promotions_detectable"`
	// Error and ErrorKind (connect, tls, auth, timeout, protocol,
	// canceled) when Placement is error.
	Error     string `json:"error,omitempty"`
	ErrorKind string `json:"error_kind,omitempty"`
	// Notes are what the check could not do fully on this mailbox (a
	// configured folder missing, a folder that could not be opened, the
	// Gmail category search failing).
	Notes      []string `json:"notes,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	// Commands counts the IMAP commands sent (benchmarks, logs).
	Commands int `json:"-"`
}

// Summary counts the seeds by placement.
type Summary struct {
	Inbox      int `json:"inbox"`
	Promotions int `json:"promotions"`
	Spam       int `json:"spam"`
	Other      int `json:"other"`
	NotFound   int `json:"not_found"`
	Error      int `json:"error"`
	Total      int `json:"total"`
	// InboxRate is Inbox over the seeds that answered (Total - Error),
	// three decimals; 0 when none answered. A message in promotions is
	// delivered but not in the inbox.
	InboxRate float64 `json:"inbox_rate"`
}

// Found counts the seeds where the message was found: the job's
// results_count.
func (r *Result) Found() int {
	return r.Summary.Inbox + r.Summary.Promotions + r.Summary.Spam + r.Summary.Other
}

func summarize(seeds []SeedResult) Summary {
	var s Summary
	for _, r := range seeds {
		s.Total++
		switch {
		case r.Placement == PlacementInbox:
			s.Inbox++
		case r.Placement == PlacementPromotions:
			s.Promotions++
		case r.Placement == PlacementSpam:
			s.Spam++
		case strings.HasPrefix(r.Placement, PlacementOtherPrefix):
			s.Other++
		case r.Placement == PlacementNotFound:
			s.NotFound++
		default:
			s.Error++
		}
	}
	if answered := s.Total - s.Error; answered > 0 {
		s.InboxRate = math.Round(float64(s.Inbox)/float64(answered)*1000) / 1000
	}
	return s
}
