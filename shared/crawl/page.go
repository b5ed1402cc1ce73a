// Package crawl is the website fetcher every enrichment module uses
// (docs/crawl.md): public addresses only, robots.txt honoured, polite per
// host, bounded in time and size, decoded to UTF-8, cached per job.
package crawl

import (
	"bytes"
	"net/http"
	"net/url"
	"sync"

	"github.com/PuerkitoBio/goquery"
)

// Page is one fetched page, its body decoded to UTF-8.
type Page struct {
	// URL is the page's final address, after redirects.
	URL *url.URL
	// Status is the HTTP status of the final answer.
	Status int
	// Header is the final answer's header.
	Header http.Header
	// Body is the body decoded to UTF-8, cut at the fetcher's cap.
	Body []byte

	once sync.Once
	doc  *goquery.Document
}

// NewPage returns a page over an already decoded body (the fetcher's
// answer, or a test's fixture).
func NewPage(u *url.URL, status int, header http.Header, body []byte) *Page {
	if header == nil {
		header = http.Header{}
	}
	return &Page{URL: u, Status: status, Header: header, Body: body}
}

// Doc is the page parsed as HTML (golang.org/x/net/html through goquery),
// parsed once; an unparseable body gives an empty document, never nil.
func (p *Page) Doc() *goquery.Document {
	p.once.Do(func() {
		d, err := goquery.NewDocumentFromReader(bytes.NewReader(p.Body))
		if err != nil {
			d, _ = goquery.NewDocumentFromReader(bytes.NewReader(nil))
		}
		d.Url = p.URL
		p.doc = d
	})
	return p.doc
}

// Resolve makes href absolute against the page's URL (honouring a <base
// href>); nil when href is not a valid reference.
func (p *Page) Resolve(href string) *url.URL {
	ref, err := url.Parse(href)
	if err != nil {
		return nil
	}
	base := p.URL
	if b, ok := p.Doc().Find("base[href]").First().Attr("href"); ok {
		if bu, err := url.Parse(b); err == nil && p.URL != nil {
			base = p.URL.ResolveReference(bu)
		}
	}
	if base == nil {
		return ref
	}
	return base.ResolveReference(ref)
}
