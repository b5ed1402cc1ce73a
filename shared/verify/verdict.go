package verify

// Status is the verdict on an address, the module's status column.
type Status string

// The statuses (docs/verify.md).
const (
	// Valid: the address's mail server accepted it, and its domain
	// accepts nothing else (not a catch-all).
	Valid Status = "valid"
	// Invalid: mail to it cannot be delivered: bad syntax, a domain with
	// no mail host, or a server that refused the mailbox.
	Invalid Status = "invalid"
	// Risky: it may be delivered, but a send risks a bounce or a dead
	// inbox: a catch-all domain, a disposable domain, a full mailbox.
	Risky Status = "risky"
	// Unknown: no verdict could be reached now: greylisting, a timeout, a
	// server that blocked the probe or failed, DNS failing, or the SMTP
	// probe switched off. Trying again later may tell.
	Unknown Status = "unknown"
)

// Category says why, the module's category column. Each category has
// one status (Category.Status).
type Category string

// The categories, by status (docs/verify.md).
const (
	// valid
	Deliverable Category = "deliverable" // a mailbox the server accepted
	Role        Category = "role"        // the same, for a role account (contact@, info@, ...)

	// invalid
	Syntax        Category = "syntax"        // not an address this checker accepts (docs/verify.md)
	NoMX          Category = "no_mx"         // the domain has no public mail host
	Undeliverable Category = "undeliverable" // the server refused the mailbox (5xx)

	// risky
	CatchAll    Category = "catch_all"    // the domain accepts any mailbox, so this one is unproven
	Disposable  Category = "disposable"   // a throw-away mail service
	MailboxFull Category = "mailbox_full" // the mailbox exists but is over quota

	// unknown
	Greylisted Category = "greylisted" // a temporary refusal (4xx): greylisting, rate limit, busy
	Timeout    Category = "timeout"    // the server did not answer in time
	Blocked    Category = "blocked"    // the server refused the probe itself (policy, blocklist)
	SMTPError  Category = "smtp_error" // refused connection, closed mid-dialogue, garbage replies
	DNSError   Category = "dns_error"  // the DNS failed (not a "no such domain" answer)
	NotProbed  Category = "not_probed" // syntax and DNS fine; the SMTP probe is switched off
)

// Categories lists every category in the order of docs/verify.md.
var Categories = []Category{
	Deliverable, Role,
	Syntax, NoMX, Undeliverable,
	CatchAll, Disposable, MailboxFull,
	Greylisted, Timeout, Blocked, SMTPError, DNSError, NotProbed,
}

// Status is the status a category belongs to.
func (c Category) Status() Status {
	switch c {
	case Deliverable, Role:
		return Valid
	case Syntax, NoMX, Undeliverable:
		return Invalid
	case CatchAll, Disposable, MailboxFull:
		return Risky
	}
	return Unknown
}

// Result is the verdict on one address.
type Result struct {
	Status   Status
	Category Category
	// Email is the address as checked (trimmed, "mailto:" dropped, the
	// domain in lower case and A-labels); the input when it is no address.
	Email string
	// MX is the mail host that answered the SMTP probe, if one did.
	MX string
	// Reply is the server's reply that decided, such as "550 5.1.1 user
	// unknown", or what went wrong ("dial tcp ...: connection refused").
	Reply string
}

func verdict(email string, c Category, reply string) Result {
	return Result{Status: c.Status(), Category: c, Email: email, Reply: reply}
}
