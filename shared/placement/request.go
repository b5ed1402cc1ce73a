package placement

import (
	"errors"
	"net/netip"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/prospectdata/svc/shared/apperr"
)

// Limits of a request (the body of POST /api/jobs/delivery-check).
const (
	MaxDomainLen  = 253 // RFC 1035, in ASCII (an IDN counts as its xn-- form)
	MaxSubjectLen = 200 // characters
)

// Request is what a check looks for: a message whose From address is at
// Domain or one of its subdomains, whose Subject contains SubjectFilter
// (case-insensitive), received at or after Since (zero: the Checker's
// Lookback before now). Its JSON is the job's parameters.
type Request struct {
	Domain        string    `json:"domain"`
	SubjectFilter string    `json:"subject_filter"`
	Since         time.Time `json:"since,omitzero"`
}

// ValidateRequest checks a check's domain and subject filter: a 422
// (apperr.Fields) naming each bad field, in French and English.
func ValidateRequest(domain, subject string) error {
	_, err := NormalizeRequest(Request{Domain: domain, SubjectFilter: subject})
	return err
}

// NormalizeRequest validates the request (as ValidateRequest) and
// returns it with the domain in lower-case ASCII (an IDN as its xn--
// form, no trailing dot) and the subject filter trimmed.
func NormalizeRequest(r Request) (Request, error) {
	var fields []apperr.FieldError
	d, err := normalizeDomain(r.Domain)
	if err != nil {
		fields = append(fields, err.(*fieldErr).field("domain"))
	}
	s, err := normalizeSubject(r.SubjectFilter)
	if err != nil {
		fields = append(fields, err.(*fieldErr).field("subject_filter"))
	}
	if len(fields) > 0 {
		return r, apperr.Fields(fields...)
	}
	r.Domain, r.SubjectFilter = d, s
	return r, nil
}

// fieldErr is one field's message in both languages.
type fieldErr struct{ fr, en string }

func (e *fieldErr) Error() string { return e.en }

func (e *fieldErr) field(name string) apperr.FieldError {
	return apperr.Field(name, name+" : "+e.fr, name+": "+e.en)
}

func normalizeDomain(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", &fieldErr{"requis (un nom de domaine, par exemple exemple.fr).", "required (a domain name, for example example.com)."}
	case strings.Contains(s, "://") || strings.HasPrefix(strings.ToLower(s), "http:") ||
		strings.HasPrefix(strings.ToLower(s), "https:"):
		return "", &fieldErr{"un nom de domaine sans schéma (exemple.fr, pas https://exemple.fr).",
			"a domain name without a scheme (example.com, not https://example.com)."}
	case strings.Contains(s, "@"):
		return "", &fieldErr{"le domaine seul, sans adresse (exemple.fr, pas contact@exemple.fr).",
			"the domain alone, not an address (example.com, not contact@example.com)."}
	case strings.ContainsAny(s, "/?#:"):
		return "", &fieldErr{"un nom de domaine seul, sans chemin ni port.", "a domain name alone, without a path or port."}
	}
	if _, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return "", &fieldErr{"un nom de domaine, pas une adresse IP.", "a domain name, not an IP address."}
	}
	a, err := asciiHostname(s)
	if err != nil {
		return "", err
	}
	if !strings.Contains(a, ".") {
		return "", &fieldErr{"un nom de domaine complet (exemple.fr).", "a fully qualified domain name (example.com)."}
	}
	return a, nil
}

// asciiHostname is the lower-case ASCII form of a host name: labels of
// letters, digits and inner hyphens, 1 to 63 bytes each, 253 in all
// (after IDNA conversion of a Unicode name).
func asciiHostname(s string) (string, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	bad := &fieldErr{"un nom d'hôte valide (lettres, chiffres, tirets ; 253 caractères au plus).",
		"a valid host name (letters, digits, hyphens; at most 253 characters)."}
	if s == "" || len(s) > 4*MaxDomainLen || !utf8.ValidString(s) {
		return "", bad
	}
	a, err := idna.Lookup.ToASCII(s)
	if err != nil {
		return "", bad
	}
	a = strings.ToLower(a)
	if len(a) > MaxDomainLen {
		return "", &fieldErr{"253 caractères au plus.", "at most 253 characters."}
	}
	for _, label := range strings.Split(a, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", bad
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", bad
			}
		}
	}
	return a, nil
}

func normalizeSubject(s string) (string, error) {
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	switch {
	case !utf8.ValidString(s):
		return "", &fieldErr{"du texte UTF-8.", "UTF-8 text."}
	case n == 0 || n > MaxSubjectLen:
		return "", &fieldErr{"1 à 200 caractères.", "1 to 200 characters."}
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "", &fieldErr{"une seule ligne, sans caractère de contrôle.", "one line, without control characters."}
	}
	return s, nil
}

// errNoSeeds is the check of a Checker without seeds.
var errNoSeeds = errors.New("delivery_check has no seed mailboxes configured")
