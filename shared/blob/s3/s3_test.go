package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/blob/blobtest"
)

// emulator returns the S3 emulator's endpoint, or skips the test.
func emulator(t testing.TB) string {
	t.Helper()
	ep := os.Getenv("SVC_TEST_S3_ENDPOINT")
	if ep == "" {
		if os.Getenv("SVC_TEST_REQUIRE_EMULATORS") == "1" {
			t.Fatal("SVC_TEST_S3_ENDPOINT unset: the emulators are not running")
		}
		t.Skip("no S3 emulator: run `make emulators-up`, then `set -a && . .tools/emulators/env && set +a`")
	}
	return ep
}

// newClient is an S3 client for the emulator at endpoint, built as the
// service builds one for AWS but for the static credentials and path-style
// addressing (the emulator serves every bucket on one host).
func newClient(endpoint string, httpClient aws.HTTPClient) *awss3.Client {
	return awss3.New(awss3.Options{
		Region:       "eu-west-3",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   httpClient,
		// For the emulator only: fauxqs 2.4.1 reads the part ETags of
		// CompleteMultipartUpload with a pattern that decodes "&quot;" but
		// not "&#34;", which is how encoding/xml escapes the quotes S3 puts
		// around ETags, so every multipart upload would fail with
		// InvalidPart. S3 takes the ETags unquoted as well.
		APIOptions: []func(*middleware.Stack) error{unquotePartETags},
	})
}

func unquotePartETags(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("UnquotePartETags",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if p, ok := in.Parameters.(*awss3.CompleteMultipartUploadInput); ok && p.MultipartUpload != nil {
				for i := range p.MultipartUpload.Parts {
					part := &p.MultipartUpload.Parts[i]
					part.ETag = aws.String(strings.Trim(aws.ToString(part.ETag), `"`))
				}
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

// runID makes bucket names unique per test run, so that runs sharing an
// emulator never see each other's objects.
var runID = fmt.Sprintf("%x", time.Now().UnixNano())

var bucketSeq atomic.Int64

// newBucket creates an empty bucket for one test and removes it afterwards.
func newBucket(t testing.TB, client *awss3.Client) string {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("svc-blobtest-%s-%d", runID, bucketSeq.Add(1))
	_, err := client.CreateBucket(ctx, &awss3.CreateBucketInput{
		Bucket: aws.String(name),
		CreateBucketConfiguration: &types.CreateBucketConfiguration{
			LocationConstraint: types.BucketLocationConstraintEuWest3,
		},
	})
	if err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	t.Cleanup(func() {
		pages := awss3.NewListObjectsV2Paginator(client, &awss3.ListObjectsV2Input{Bucket: aws.String(name)})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				t.Errorf("emptying bucket %s: %v", name, err)
				return
			}
			for _, o := range page.Contents {
				if _, err := client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(name), Key: o.Key}); err != nil {
					t.Errorf("emptying bucket %s: %v", name, err)
					return
				}
			}
		}
		if _, err := client.DeleteBucket(ctx, &awss3.DeleteBucketInput{Bucket: aws.String(name)}); err != nil {
			t.Errorf("DeleteBucket %s: %v", name, err)
		}
	})
	return name
}

// TestContract runs the suite through presignProxy, which adds to the
// emulator the presigned-URL checks and overrides S3 makes.
func TestContract(t *testing.T) {
	proxy := newPresignProxy(t, emulator(t))
	client := newClient(proxy.url, nil)
	t.Run("Suite", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T) blob.Store { return New(client, newBucket(t, client)) })
	})
	if proxy.presigned.Load() == 0 {
		t.Error("no presigned request went through the checking proxy")
	}
}

func TestDownloadURLRefusedWhenAltered(t *testing.T) {
	proxy := newPresignProxy(t, emulator(t))
	client := newClient(proxy.url, nil)
	s := New(client, newBucket(t, client))
	ctx := context.Background()
	if _, err := s.Put(ctx, "dl/f.csv", strings.NewReader("a,b\n"), "text/csv"); err != nil {
		t.Fatal(err)
	}
	raw, ok, err := s.DownloadURL(ctx, "dl/f.csv", "f.csv", 5*time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	u, _ := url.Parse(raw)
	q := u.Query()
	if q.Get("X-Amz-Expires") != "300" || q.Get("X-Amz-SignedHeaders") != "host" || u.Path != "/"+s.bucket+"/dl/f.csv" ||
		q.Get("response-content-disposition") != `attachment; filename="f.csv"` {
		t.Fatalf("presigned URL %s", raw)
	}
	status := func(u string) int {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status(raw); got != http.StatusOK {
		t.Fatalf("GET of the URL: %d", got)
	}
	altered := map[string]func(*url.URL){
		"file name": func(u *url.URL) {
			q := u.Query()
			q.Set("response-content-disposition", `attachment; filename="evil.exe"`)
			u.RawQuery = q.Encode()
		},
		"key":    func(u *url.URL) { u.Path = strings.Replace(u.Path, "f.csv", "g.csv", 1) },
		"expiry": func(u *url.URL) { q := u.Query(); q.Set("X-Amz-Expires", "3600"); u.RawQuery = q.Encode() },
	}
	for what, alter := range altered {
		v, _ := url.Parse(raw)
		alter(v)
		if got := status(v.String()); got != http.StatusForbidden {
			t.Errorf("URL with another %s: %d, want 403", what, got)
		}
	}
	proxy.skew.Store(int64(5*time.Minute + 2*time.Second))
	if got := status(raw); got != http.StatusForbidden {
		t.Errorf("URL after its validity: %d, want 403", got)
	}
}

func TestDownloadURLValidity(t *testing.T) {
	client := newClient(emulator(t), nil)
	s := New(client, newBucket(t, client))
	ctx := context.Background()
	if _, err := s.Put(ctx, "f", strings.NewReader("x"), ""); err != nil {
		t.Fatal(err)
	}
	for _, ttl := range []time.Duration{0, -time.Minute, 500 * time.Millisecond, 7*24*time.Hour + time.Second} {
		if _, _, err := s.DownloadURL(ctx, "f", "f", ttl); err == nil || errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("DownloadURL with validity %v = %v, want an error", ttl, err)
		}
	}
	if _, ok, err := s.DownloadURL(ctx, "f", "f", 7*24*time.Hour); err != nil || !ok {
		t.Errorf("DownloadURL for 7 days = %v, %v", ok, err)
	}
}

func TestAttachment(t *testing.T) {
	tests := []struct{ name, header, decoded string }{
		{"report.csv", `attachment; filename="report.csv"`, "report.csv"},
		{"a b;c,d.csv", `attachment; filename="a b;c,d.csv"`, "a b;c,d.csv"},
		{`a"b.csv`, `attachment; filename="a_b.csv"; filename*=UTF-8''a%22b.csv`, `a"b.csv`},
		{"été.csv", `attachment; filename="_t_.csv"; filename*=UTF-8''%C3%A9t%C3%A9.csv`, "été.csv"},
		{"../a/b\\c\n.csv", `attachment; filename=".._a_b_c_.csv"`, ".._a_b_c_.csv"},
		{"日本 100%.xlsx", `attachment; filename="__ 100%.xlsx"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%20100%25.xlsx`, "日本 100%.xlsx"},
	}
	for _, tt := range tests {
		got := attachment(tt.name)
		if got != tt.header {
			t.Errorf("attachment(%q) = %s\nwant %s", tt.name, got, tt.header)
		}
		disp, params, err := mime.ParseMediaType(got)
		if err != nil || disp != "attachment" || params["filename"] != tt.decoded {
			t.Errorf("attachment(%q) decodes as %q %q %v", tt.name, disp, params["filename"], err)
		}
	}
}

// recorder records the S3 calls that reach the network, by operation name,
// followed by the status or "canceled" when the call failed.
type recorder struct {
	mu  sync.Mutex
	ops []string
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	op := awsmiddleware.GetOperationName(req.Context())
	resp, err := http.DefaultClient.Do(req)
	switch {
	case errors.Is(err, context.Canceled):
		op += " canceled"
	case err != nil:
		op += " " + err.Error()
	case resp.StatusCode >= 300:
		op += fmt.Sprintf(" %d", resp.StatusCode)
	}
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
	return resp, err
}

// take returns the operations since the last call, sorted.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ops := r.ops
	r.ops = nil
	slices.Sort(ops)
	return ops
}

// TestCallsPerOperation checks the table of S3 calls in the package doc.
func TestCallsPerOperation(t *testing.T) {
	rec := &recorder{}
	client := newClient(emulator(t), rec)
	s := New(client, newBucket(t, client))
	rec.take()
	ctx := context.Background()
	big := func(n int64) io.Reader { return io.LimitReader(zeros{}, n) }
	parts := func(n int) []string {
		ops := []string{"CompleteMultipartUpload", "CreateMultipartUpload"}
		for range n {
			ops = append(ops, "UploadPart")
		}
		slices.Sort(ops)
		return ops
	}
	steps := []struct {
		name string
		do   func() error
		want []string
	}{
		{"Put 1 KiB", func() error { _, err := s.Put(ctx, "c/small", big(1024), ""); return err }, []string{"PutObject"}},
		{"Put 5 MiB - 1", func() error { _, err := s.Put(ctx, "c/five", big(5<<20-1), ""); return err }, []string{"PutObject"}},
		{"Put 5 MiB", func() error { _, err := s.Put(ctx, "c/five", big(5<<20), ""); return err }, parts(1)},
		{"Put 12 MiB", func() error { _, err := s.Put(ctx, "c/big", big(12<<20), ""); return err }, parts(3)},
		{"Open", func() error {
			rc, _, err := s.Open(ctx, "c/small")
			if err == nil {
				rc.Close()
			}
			return err
		}, []string{"GetObject"}},
		{"Stat", func() error { _, err := s.Stat(ctx, "c/small"); return err }, []string{"HeadObject"}},
		{"List", func() error { _, _, err := s.List(ctx, "c/", 0); return err }, []string{"ListObjectsV2"}},
		{"DownloadURL", func() error { _, _, err := s.DownloadURL(ctx, "c/small", "", time.Minute); return err }, []string{"HeadObject"}},
		{"Delete", func() error { return s.Delete(ctx, "c/small") }, []string{"DeleteObject"}},
		{"DeletePrefix", func() error { return s.DeletePrefix(ctx, "c/") }, []string{"DeleteObjects", "ListObjectsV2"}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := rec.take(); !slices.Equal(got, st.want) {
			t.Errorf("%s: S3 calls %q, want %q", st.name, got, st.want)
		}
	}

	// A failed multipart upload is aborted, never completed.
	_, err := s.Put(ctx, "c/failed", io.MultiReader(big(7<<20), iotest.ErrReader(errors.New("boom"))), "")
	if err == nil {
		t.Fatal("failing Put succeeded")
	}
	got := rec.take()
	if !slices.Contains(got, "CreateMultipartUpload") || !slices.Contains(got, "AbortMultipartUpload") || slices.Contains(got, "CompleteMultipartUpload") {
		t.Errorf("failed multipart Put: S3 calls %q, want it created and aborted", got)
	}

	// So is one whose context is cancelled, with a context of its own.
	cctx, cancel := context.WithCancel(ctx)
	r := io.MultiReader(big(7<<20), readFunc(func([]byte) (int, error) { cancel(); return 0, cctx.Err() }))
	if _, err := s.Put(cctx, "c/cancelled", r, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Put = %v", err)
	}
	got = rec.take()
	if !slices.Contains(got, "AbortMultipartUpload") || slices.Contains(got, "CompleteMultipartUpload") {
		t.Errorf("cancelled multipart Put: S3 calls %q, want it aborted", got)
	}
	// The recorder marks failed calls: the abort must have succeeded.
	for _, op := range got {
		if strings.Contains(op, " ") && op != "UploadPart canceled" {
			t.Errorf("cancelled multipart Put: failed call %q", op)
		}
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestPagination lists and deletes across pages, with pages of 2 keys.
func TestPagination(t *testing.T) {
	rec := &recorder{}
	client := newClient(emulator(t), rec)
	s := New(client, newBucket(t, client))
	s.pageSize = 2
	ctx := context.Background()
	keys := []string{"p/1", "p/2", "p/3", "p/4", "p/5"}
	for _, k := range keys {
		if _, err := s.Put(ctx, k, strings.NewReader(k), ""); err != nil {
			t.Fatal(err)
		}
	}
	rec.take()
	tests := []struct {
		limit int
		want  []string
		more  bool
		calls int
	}{
		{0, keys, false, 3},
		{3, keys[:3], true, 2},
		{4, keys[:4], true, 2},
		{5, keys, false, 3},
		{1, keys[:1], true, 1},
	}
	for _, tt := range tests {
		infos, more, err := s.List(ctx, "p/", tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, in := range infos {
			got = append(got, in.Key)
		}
		if !slices.Equal(got, tt.want) || more != tt.more {
			t.Errorf("List(limit %d) = %q more=%v, want %q more=%v", tt.limit, got, more, tt.want, tt.more)
		}
		if calls := len(rec.take()); calls != tt.calls {
			t.Errorf("List(limit %d): %d calls, want %d", tt.limit, calls, tt.calls)
		}
	}
	if err := s.DeletePrefix(ctx, "p/"); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"DeleteObjects", "DeleteObjects", "DeleteObjects", "ListObjectsV2", "ListObjectsV2", "ListObjectsV2"}) {
		t.Errorf("DeletePrefix of 5 keys in pages of 2: %q", got)
	}
	if infos, _, _ := s.List(ctx, "p/", 0); len(infos) != 0 {
		t.Fatalf("left after DeletePrefix: %+v", infos)
	}
}

func TestMissingBucketIsNoNotFound(t *testing.T) {
	s := New(newClient(emulator(t), nil), "svc-blobtest-no-such-bucket-"+runID)
	rc, _, err := s.Open(context.Background(), "k")
	if err == nil {
		rc.Close()
	}
	if err == nil || errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open in a missing bucket = %v, want an error other than ErrNotFound", err)
	}
}

func TestNewPanicsOnBadPartSize(t *testing.T) {
	for _, n := range []int64{1 << 20, 6 << 30} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New with part size %d did not panic", n)
				}
			}()
			New(awss3.New(awss3.Options{Region: "eu-west-3"}), "b", WithPartSize(n))
		}()
	}
}

func s3Bench(b *testing.B) *Store {
	// Straight to the emulator: the proxy would add its own copy.
	client := newClient(emulator(b), nil)
	return New(client, newBucket(b, client))
}

func BenchmarkPutGet1MiB(b *testing.B)       { blobtest.BenchPutGet(b, s3Bench(b), 1<<20) }
func BenchmarkPutStreamed64MiB(b *testing.B) { blobtest.BenchStreamedPut(b, s3Bench(b), 64<<20) }
