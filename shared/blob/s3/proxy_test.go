package s3

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// presignProxy stands in front of the S3 emulator for what fauxqs 2.4.1 does
// not do with presigned URLs, so that the contract suite's download test
// means what it would against S3:
//
//   - it checks the SigV4 query signature and the expiry of every presigned
//     request, as S3 does, and answers 403 otherwise; the signature is
//     recomputed here from the AWS specification, independently of the SDK
//     that made the URL;
//   - it applies the response-* parameters of a presigned GET
//     (response-content-disposition above all) to the answer's headers,
//     which fauxqs ignores.
//
// Every other request (the SDK's own, signed in headers) passes through
// unchanged.
type presignProxy struct {
	url       string // where clients send requests
	secret    string
	region    string
	skew      atomic.Int64 // added to the clock, to test expiry without sleeping
	presigned atomic.Int64 // presigned requests verified, so tests can tell it worked
}

// overrides are the query parameters S3 copies to response headers.
var overrides = map[string]string{
	"response-content-disposition": "Content-Disposition",
	"response-content-type":        "Content-Type",
	"response-content-language":    "Content-Language",
	"response-content-encoding":    "Content-Encoding",
	"response-cache-control":       "Cache-Control",
	"response-expires":             "Expires",
}

func newPresignProxy(t testing.TB, target string) *presignProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &presignProxy{secret: "test", region: "eu-west-3"}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) },
		// A client that hangs up (the cancellation tests do) is no proxy
		// failure worth the default log line.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil {
				t.Logf("proxy: %s %s: %v", r.Method, r.URL, err)
			}
			w.WriteHeader(http.StatusBadGateway)
		},
		ModifyResponse: func(resp *http.Response) error {
			q := resp.Request.URL.Query()
			if q.Get("X-Amz-Signature") == "" || resp.StatusCode/100 != 2 {
				return nil
			}
			for param, header := range overrides {
				if v := q.Get(param); v != "" {
					resp.Header.Set(header, v)
				}
			}
			return nil
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("X-Amz-Signature") {
			if code, err := p.verify(r); err != nil {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprintf(w, "<Error><Code>%s</Code><Message>%s</Message></Error>", code, err)
				return
			}
			p.presigned.Add(1)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// verify checks a presigned request as S3 does, returning the S3 error code
// and the reason when it is refused.
func (p *presignProxy) verify(r *http.Request) (string, error) {
	q := r.URL.Query()
	if q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" {
		return "AuthorizationQueryParametersError", fmt.Errorf("algorithm %q", q.Get("X-Amz-Algorithm"))
	}
	cred := strings.Split(q.Get("X-Amz-Credential"), "/")
	if len(cred) != 5 || cred[2] != p.region || cred[3] != "s3" || cred[4] != "aws4_request" {
		return "AuthorizationQueryParametersError", fmt.Errorf("credential %q", q.Get("X-Amz-Credential"))
	}
	signed, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil || signed.Format("20060102") != cred[1] {
		return "AuthorizationQueryParametersError", fmt.Errorf("date %q", q.Get("X-Amz-Date"))
	}
	expires, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	if err != nil || expires < 1 || expires > 604800 {
		return "AuthorizationQueryParametersError", fmt.Errorf("X-Amz-Expires %q not in [1, 604800]", q.Get("X-Amz-Expires"))
	}
	now := time.Now().Add(time.Duration(p.skew.Load()))
	if now.After(signed.Add(time.Duration(expires) * time.Second)) {
		return "AccessDenied", fmt.Errorf("Request has expired")
	}

	// The canonical request of SigV4, for a query-signed request.
	var headers strings.Builder
	signedHeaders := strings.Split(q.Get("X-Amz-SignedHeaders"), ";")
	for _, h := range signedHeaders {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
		}
		headers.WriteString(h + ":" + strings.TrimSpace(v) + "\n")
	}
	var params []string
	for k, vs := range q {
		if k == "X-Amz-Signature" {
			continue
		}
		for _, v := range vs {
			params = append(params, uriEncode(k, false)+"="+uriEncode(v, false))
		}
	}
	slices.Sort(params)
	canonical := strings.Join([]string{
		r.Method,
		uriEncode(r.URL.Path, true), // S3 encodes the path once, slashes kept
		strings.Join(params, "&"),
		headers.String(),
		q.Get("X-Amz-SignedHeaders"),
		"UNSIGNED-PAYLOAD",
	}, "\n")
	scope := strings.Join(cred[1:], "/")
	hash := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + q.Get("X-Amz-Date") + "\n" + scope + "\n" + hex.EncodeToString(hash[:])
	key := []byte("AWS4" + p.secret)
	for _, part := range cred[1:] {
		key = hmacSHA256(key, part)
	}
	want := hex.EncodeToString(hmacSHA256(key, toSign))
	if !hmac.Equal([]byte(want), []byte(q.Get("X-Amz-Signature"))) {
		return "SignatureDoesNotMatch", fmt.Errorf("the request signature we calculated does not match the signature you provided")
	}
	return "", nil
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// uriEncode is SigV4's UriEncode: every byte but the unreserved characters
// percent-encoded in upper case, slashes kept in paths.
func uriEncode(s string, path bool) string {
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~', path && c == '/':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
