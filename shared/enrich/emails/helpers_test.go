package emails

import (
	"encoding/hex"
	"net/url"
	"testing"

	"github.com/prospectdata/svc/shared/crawl"
)

// page wraps an HTML fragment in a page at u.
func page(t testing.TB, u, body string) *crawl.Page {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatalf("parse %q: %v", u, err)
	}
	return crawl.NewPage(pu, 200, nil, []byte(body))
}

func addresses(found []Found) []string {
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.Address
	}
	return out
}

type crawlPage = crawl.Page

// cfEncode writes an address the way Cloudflare's email protection does.
func cfEncode(key byte, addr string) string {
	b := []byte{key}
	for i := 0; i < len(addr); i++ {
		b = append(b, addr[i]^key)
	}
	return hex.EncodeToString(b)
}
