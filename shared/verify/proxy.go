package verify

import (
	"fmt"
	"net/url"

	"golang.org/x/net/proxy"
)

// ProxyDialer is a Dialer through a SOCKS5 proxy, given as
// "socks5://[user:password@]host:port": the relay through which a
// runtime that cannot open port 25 itself (AWS Lambda) reaches mail
// servers. The checker still picks and checks the address dialled; the
// proxy only carries the connection.
func ProxyDialer(rawURL string) (Dialer, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("verify: SMTP proxy address: %w", err)
	}
	if u.Scheme != "socks5" && u.Scheme != "socks5h" {
		return nil, fmt.Errorf("verify: SMTP proxy %q: only socks5:// is supported", u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("verify: SMTP proxy %q: no host", u.Redacted())
	}
	d, err := proxy.FromURL(u, proxy.Direct)
	if err != nil {
		return nil, fmt.Errorf("verify: SMTP proxy %q: %w", u.Redacted(), err)
	}
	cd, ok := d.(proxy.ContextDialer)
	if !ok {
		return nil, fmt.Errorf("verify: SMTP proxy %q cannot dial with a context", u.Redacted())
	}
	return cd, nil
}
