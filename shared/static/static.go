// Package static serves files built into the binary: hashed once for their
// ETag, gzipped once when that pays, answered with http.ServeContent
// (If-None-Match, ranges, HEAD). The API reference (shared/apiref) and the
// web console (shared/console) serve their bundles through it.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// File is one file to serve.
type File struct {
	MediaType string
	// Version is a short hash of the content: it changes with it.
	Version  string
	body, gz []byte
}

// NewFile hashes body and, above a kilobyte, gzips it once (nothing in
// front of the service compresses: API Gateway's HTTP APIs do not).
func NewFile(mediaType string, body []byte) *File {
	sum := sha256.Sum256(body)
	f := &File{MediaType: mediaType, Version: hex.EncodeToString(sum[:8]), body: body}
	if len(body) > 1024 {
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		w.Write(body)
		w.Close()
		if gz.Len() < len(body) {
			f.gz = gz.Bytes()
		}
	}
	return f
}

// Size is what a client that accepts gzip receives.
func (f *File) Size() int {
	if f.gz != nil {
		return len(f.gz)
	}
	return len(f.body)
}

// Serve answers the file with the given Cache-Control, gzipped when the
// client accepts it.
func (f *File) Serve(w http.ResponseWriter, r *http.Request, name, cacheControl string) {
	h := w.Header()
	h.Set("Content-Type", f.MediaType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", cacheControl)
	h.Set("Vary", "Accept-Encoding")
	body, etag := f.body, `"`+f.Version+`"`
	if f.gz != nil && AcceptsGzip(r.Header.Get("Accept-Encoding")) {
		body, etag = f.gz, `"`+f.Version+`-gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

// AcceptsGzip reads Accept-Encoding: gzip listed without q=0.
func AcceptsGzip(v string) bool {
	for _, part := range strings.Split(v, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, found := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !found {
			return true
		}
		f, err := strconv.ParseFloat(q, 64)
		return err == nil && f > 0
	}
	return false
}
