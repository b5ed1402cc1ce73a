package placement

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/jsonerr"
	"github.com/prospectdata/svc/shared/upstream"
)

// TLSMode is how a seed's IMAP connection is secured.
type TLSMode string

const (
	// TLSImplicit is TLS from the first byte (port 993), the default.
	TLSImplicit TLSMode = "implicit"
	// TLSStartTLS upgrades a cleartext connection (port 143) before
	// LOGIN; a server refusing STARTTLS fails the seed.
	TLSStartTLS TLSMode = "starttls"
	// TLSPlain is cleartext IMAP, for loopback test servers only:
	// ParseSeeds refuses it for any other host.
	TLSPlain TLSMode = "plain"
)

// Limits of the seeds' configuration (SVC_DELIVERY_SEEDS).
const (
	MaxSeedsConfig   = 64 << 10 // bytes of JSON
	MaxSeeds         = 50
	MaxFolderNames   = 10 // names a seed maps to one class
	maxFolderNameLen = 255
	maxProviderLen   = 32
	maxAddressLen    = 254
	maxSecretLen     = 1024
)

// Seed is one seed mailbox: where a test message is sent and then looked
// for. Password is a secret (SVC_DELIVERY_SEEDS is one, read from
// Secrets Manager on AWS): Seed's String and MarshalJSON leave it out.
type Seed struct {
	// Provider labels the mailbox in results ("gmail", "outlook",
	// "orange", "yahoo", "custom", ...); a known label also gives Host
	// its default.
	Provider string `json:"provider"`
	// Address is the mailbox's address, the one test messages go to.
	Address string `json:"address"`
	// Host is the IMAP server, host:port (default: the provider's, port
	// 993 with implicit TLS, 143 with STARTTLS).
	Host string `json:"host,omitempty"`
	// TLS is implicit (default), starttls, or plain (loopback only).
	TLS TLSMode `json:"tls,omitempty"`
	// Username defaults to Address.
	Username string `json:"username,omitempty"`
	Password string `json:"password"`
	// Folders, when a class is set, replaces the discovery of that
	// class's folders (exact IMAP names, decoded UTF-8).
	Folders FolderMap `json:"folders,omitempty"`
	// AuthservID, when set, picks the Authentication-Results header of
	// that authentication service (RFC 8601 authserv-id, for example
	// "mx.google.com"); otherwise the topmost header counts, the one the
	// receiving provider added last.
	AuthservID string `json:"authserv_id,omitempty"`
}

// FolderMap names the folders that mean each placement.
type FolderMap struct {
	Inbox      []string `json:"inbox,omitempty"`
	Promotions []string `json:"promotions,omitempty"`
	Spam       []string `json:"spam,omitempty"`
}

// knownHosts are the IMAP servers of the providers a seed may name
// without a host (implicit TLS, port 993).
var knownHosts = map[string]string{
	"gmail":   "imap.gmail.com",
	"outlook": "outlook.office365.com",
	"hotmail": "outlook.office365.com",
	"yahoo":   "imap.mail.yahoo.com",
	"orange":  "imap.orange.fr",
	"free":    "imap.free.fr",
	"laposte": "imap.laposte.net",
}

// String describes the seed without its password.
func (s Seed) String() string {
	return fmt.Sprintf("%s <%s> at %s (%s)", s.Provider, s.Address, s.Host, s.TLS)
}

// GoString is String: %#v shows no password either.
func (s Seed) GoString() string { return "placement.Seed{" + s.String() + "}" }

// MarshalJSON writes the seed without its password.
func (s Seed) MarshalJSON() ([]byte, error) {
	type plain Seed
	p := plain(s)
	p.Password = ""
	return json.Marshal(p)
}

// ParseSeeds reads the seed mailboxes from their JSON configuration: an
// array of seeds, or an object {"seeds": [...]}. An empty value means no
// seeds (delivery_check is then unavailable). Unknown fields, a seed
// without address or password, a bad host, plain TLS off loopback, two
// seeds with the same address: an error naming the seed and the field,
// never the password.
func ParseSeeds(config string) ([]Seed, error) {
	config = strings.TrimSpace(config)
	if config == "" {
		return nil, nil
	}
	if len(config) > MaxSeedsConfig {
		return nil, fmt.Errorf("delivery seeds: the configuration is larger than %d bytes", MaxSeedsConfig)
	}
	var seeds []Seed
	if strings.HasPrefix(config, "{") {
		var wrap struct {
			Seeds []Seed `json:"seeds"`
		}
		if err := strictJSON(config, &wrap); err != nil {
			return nil, err
		}
		seeds = wrap.Seeds
	} else if err := strictJSON(config, &seeds); err != nil {
		return nil, err
	}
	if len(seeds) > MaxSeeds {
		return nil, fmt.Errorf("delivery seeds: %d seeds, at most %d", len(seeds), MaxSeeds)
	}
	seen := map[string]int{}
	for i := range seeds {
		if err := seeds[i].normalize(); err != nil {
			return nil, fmt.Errorf("delivery seeds: seed %d: %w", i, err)
		}
		key := strings.ToLower(seeds[i].Address)
		if j, dup := seen[key]; dup {
			return nil, fmt.Errorf("delivery seeds: seed %d: address %s is also seed %d's", i, seeds[i].Address, j)
		}
		seen[key] = i
	}
	return seeds, nil
}

// strictJSON decodes one JSON value, refusing unknown fields and
// trailing data. Its errors never quote the input (it holds passwords).
func strictJSON(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("delivery seeds: invalid JSON at byte %d", se.Offset)
		case errors.As(err, &te):
			field, want, _ := jsonerr.WrongType(err, v)
			return fmt.Errorf("delivery seeds: field %q: expected %s", field, want)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return fmt.Errorf("delivery seeds: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
		return errors.New("delivery seeds: invalid JSON")
	}
	if dec.More() {
		return errors.New("delivery seeds: trailing data after the JSON value")
	}
	return nil
}

// normalize checks the seed and fills its defaults.
func (s *Seed) normalize() error {
	s.Provider = strings.ToLower(strings.TrimSpace(s.Provider))
	if s.Provider == "" {
		s.Provider = "custom"
	}
	if len(s.Provider) > maxProviderLen || strings.IndexFunc(s.Provider, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) >= 0 {
		return fmt.Errorf("provider: letters, digits, '-', '_' or '.', at most %d", maxProviderLen)
	}
	s.Address = strings.TrimSpace(s.Address)
	local, domain, ok := strings.Cut(s.Address, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") || len(s.Address) > maxAddressLen ||
		strings.IndexFunc(s.Address, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return errors.New("address: an email address is required")
	}
	switch s.TLS {
	case "":
		s.TLS = TLSImplicit
	case TLSImplicit, TLSStartTLS, TLSPlain:
	default:
		return fmt.Errorf("tls: %q is not implicit, starttls or plain", s.TLS)
	}
	s.Host = strings.TrimSpace(s.Host)
	if s.Host == "" {
		h, ok := knownHosts[s.Provider]
		if !ok {
			return errors.New("host: required (host:port) for this provider")
		}
		s.Host = h
	}
	host, port, err := net.SplitHostPort(s.Host)
	if err != nil {
		// A bare host name: the mode's usual port.
		host, port = strings.Trim(s.Host, "[]"), "993"
		if s.TLS != TLSImplicit {
			port = "143"
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return errors.New("host: the port must be 1 to 65535")
	}
	if !validServerHost(host) {
		return errors.New("host: not a host name or IP address")
	}
	s.Host = net.JoinHostPort(host, port)
	if s.TLS == TLSPlain && !upstream.Loopback(host) {
		return errors.New("tls: plain is for loopback test servers only (use implicit or starttls)")
	}
	if s.Username == "" {
		s.Username = s.Address
	}
	if len(s.Username) > maxSecretLen || len(s.Password) > maxSecretLen || strings.ContainsAny(s.Username, "\r\n\x00") ||
		strings.ContainsAny(s.Password, "\r\n\x00") {
		return fmt.Errorf("username and password: at most %d bytes, no line breaks", maxSecretLen)
	}
	if s.Password == "" {
		return errors.New("password: required")
	}
	for _, class := range []struct {
		name  string
		names []string
	}{{"inbox", s.Folders.Inbox}, {"promotions", s.Folders.Promotions}, {"spam", s.Folders.Spam}} {
		if len(class.names) > MaxFolderNames {
			return fmt.Errorf("folders.%s: at most %d names", class.name, MaxFolderNames)
		}
		for _, n := range class.names {
			if n == "" || len(n) > maxFolderNameLen || !utf8.ValidString(n) || strings.IndexFunc(n, unicode.IsControl) >= 0 {
				return fmt.Errorf("folders.%s: a folder name is 1 to %d bytes of text", class.name, maxFolderNameLen)
			}
		}
	}
	if len(s.AuthservID) > maxFolderNameLen || strings.IndexFunc(s.AuthservID, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == ';'
	}) >= 0 {
		return errors.New("authserv_id: one token, no spaces")
	}
	return nil
}

// validServerHost accepts an IP address or a DNS name.
func validServerHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	_, err := asciiHostname(h)
	return err == nil || h == "localhost"
}

// redact removes a secret from a text shown to users (a server may echo
// the LOGIN arguments in an error).
func redact(text string, secrets ...string) string {
	b := []byte(text)
	for _, s := range secrets {
		if len(s) >= 4 {
			b = bytes.ReplaceAll(b, []byte(s), []byte("***"))
		}
	}
	return string(b)
}
