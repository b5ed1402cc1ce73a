// Package s3 is the AWS driver of the file store port (blob.Store): one S3
// bucket, keys used as object keys unchanged. It passes the contract suite of
// blob/blobtest.
//
// S3 calls per operation:
//
//	Put           PutObject when the body is shorter than one part (default
//	              5 MiB), else CreateMultipartUpload, UploadPart per part (up
//	              to Concurrency at once), CompleteMultipartUpload; on failure
//	              AbortMultipartUpload, so that no parts are left billed
//	Open          GetObject, its body streamed to the caller
//	Stat          HeadObject
//	Delete        DeleteObject (S3 answers success for an absent key)
//	List          ListObjectsV2, one call per 1000 keys
//	DeletePrefix  ListObjectsV2 and DeleteObjects per 1000 keys
//	DownloadURL   HeadObject (no address for a missing file), then a
//	              presigned GetObject URL computed locally
//
// Put streams through the SDK's upload manager: the body is read part by
// part into buffers of the part size, at most Concurrency+1 of them per Put
// (30 MiB with the defaults), never whole. With an unknown length the part
// size bounds the object: 10,000 parts of 5 MiB is 48.8 GiB. Every write is
// atomic on S3: an object appears whole at the end of PutObject or
// CompleteMultipartUpload, and a GetObject in flight keeps streaming the
// version it started with.
//
// Object metadata: Content-Type only. The Content-Disposition of a download
// is not stored but asked for in the presigned URL (response-content-
// disposition), so that one object serves any file name.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/prospectdata/svc/shared/blob"
)

const (
	// defaultContentType is stored for an empty one: S3 would otherwise
	// answer binary/octet-stream, and the local driver stores this.
	defaultContentType = "application/octet-stream"
	// maxPage is the most keys S3 returns or deletes per call.
	maxPage = 1000
	// maxTTL is the longest validity of a SigV4 presigned URL.
	maxTTL = 7 * 24 * time.Hour
	// maxPartSize is S3's largest part.
	maxPartSize = 5 << 30
	// abortTimeout bounds the abort of a failed multipart upload, which
	// outlives the caller's cancellation.
	abortTimeout = 30 * time.Second
)

// Option configures New.
type Option func(*config)

type config struct {
	partSize    int64
	concurrency int
}

// WithPartSize sets the size of multipart upload parts, and so the size up
// to which a Put is a single PutObject and the memory each Put buffers
// (default and minimum 5 MiB, maximum 5 GiB). Larger parts mean fewer
// requests for large files; the largest object is 10,000 parts.
func WithPartSize(n int64) Option { return func(c *config) { c.partSize = n } }

// WithConcurrency sets how many parts of one Put are uploaded at once
// (default 5).
func WithConcurrency(n int) Option { return func(c *config) { c.concurrency = n } }

// Store is a blob.Store on an S3 bucket. It is safe for concurrent use.
type Store struct {
	client   *awss3.Client
	presign  *awss3.PresignClient
	uploader *manager.Uploader
	bucket   string
	// pageSize is the MaxKeys of each ListObjectsV2 call: S3's maximum,
	// smaller in tests to exercise pagination with few keys.
	pageSize int
}

var _ blob.Store = (*Store)(nil)

// New returns the store on bucket. It panics on a part size outside S3's
// limits or a negative concurrency: a configuration error, which would
// otherwise fail every large upload instead of the start-up.
func New(client *awss3.Client, bucket string, opts ...Option) *Store {
	cfg := config{partSize: manager.DefaultUploadPartSize, concurrency: manager.DefaultUploadConcurrency}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.partSize < manager.MinUploadPartSize || cfg.partSize > maxPartSize {
		panic(fmt.Sprintf("blob/s3: part size %d outside S3's limits [%d, %d]", cfg.partSize, manager.MinUploadPartSize, int64(maxPartSize)))
	}
	if cfg.concurrency < 0 {
		panic(fmt.Sprintf("blob/s3: negative upload concurrency %d", cfg.concurrency))
	}
	if cfg.concurrency == 0 {
		cfg.concurrency = manager.DefaultUploadConcurrency
	}
	return &Store{
		client:  client,
		presign: awss3.NewPresignClient(client),
		uploader: manager.NewUploader(client, func(u *manager.Uploader) {
			u.PartSize = cfg.partSize
			u.Concurrency = cfg.concurrency
			// Put aborts failed multipart uploads itself: the manager
			// would do it with the caller's context, which fails at once
			// when the failure is that context's cancellation, and it
			// ignores the abort's errors.
			u.LeavePartsOnError = true
		}),
		bucket:   bucket,
		pageSize: maxPage,
	}
}

// Put implements blob.Store.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	if err := blob.ValidKey(key); err != nil {
		return 0, fmt.Errorf("blob/s3: put: %w", err)
	}
	ct, err := cleanContentType(contentType)
	if err != nil {
		return 0, fmt.Errorf("blob/s3: put %s: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("blob/s3: put %s: %w", key, err)
	}
	body := &countingReader{ctx: ctx, r: r}
	_, err = s.uploader.Upload(ctx, &awss3.PutObjectInput{
		Bucket:      aws.String(s.bucket),
		Key:         aws.String(key),
		Body:        body,
		ContentType: aws.String(ct),
	})
	if err != nil {
		err = s.abort(ctx, key, err)
		if body.err != nil {
			// The body failed: say so first, whatever the manager made of it.
			return 0, fmt.Errorf("blob/s3: put %s: reading the body: %w", key, body.err)
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("blob/s3: put %s: %w (%v)", key, ctx.Err(), err)
		}
		return 0, fmt.Errorf("blob/s3: put %s: %w", key, err)
	}
	return body.n, nil
}

// abort aborts the multipart upload that failed with err, if there is one:
// otherwise its parts stay, billed and invisible, until a lifecycle rule
// removes them. It runs even when ctx is cancelled, but not for long.
func (s *Store) abort(ctx context.Context, key string, err error) error {
	var mu manager.MultiUploadFailure
	if !errors.As(err, &mu) || mu.UploadID() == "" {
		return err
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	_, aerr := s.client.AbortMultipartUpload(actx, &awss3.AbortMultipartUploadInput{
		Bucket:   aws.String(s.bucket),
		Key:      aws.String(key),
		UploadId: aws.String(mu.UploadID()),
	})
	if aerr != nil {
		return fmt.Errorf("%w; aborting upload %s failed too, its parts stay until a lifecycle rule removes them: %v", err, mu.UploadID(), aerr)
	}
	return err
}

// countingReader counts the bytes the uploader read, which is the size
// stored; it stops the upload once ctx is done, and keeps the body's own
// error so that callers can match it.
type countingReader struct {
	ctx context.Context
	r   io.Reader
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// Open implements blob.Store. The stream is the GetObject response body: it
// fails once ctx is done.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, blob.Info, error) {
	if err := blob.ValidKey(key); err != nil {
		return nil, blob.Info{}, fmt.Errorf("blob/s3: open: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, blob.Info{}, fmt.Errorf("blob/s3: open %s: %w", key, err)
	}
	out, err := s.client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, blob.Info{}, fmt.Errorf("blob/s3: open %s: %w", key, notFound(err))
	}
	return out.Body, blob.Info{
		Key:         key,
		Size:        aws.ToInt64(out.ContentLength),
		ContentType: aws.ToString(out.ContentType),
		Modified:    aws.ToTime(out.LastModified),
	}, nil
}

// Stat implements blob.Store.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	if err := blob.ValidKey(key); err != nil {
		return blob.Info{}, fmt.Errorf("blob/s3: stat: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return blob.Info{}, fmt.Errorf("blob/s3: stat %s: %w", key, err)
	}
	info, err := s.head(ctx, key)
	if err != nil {
		return blob.Info{}, fmt.Errorf("blob/s3: stat %s: %w", key, err)
	}
	return info, nil
}

func (s *Store) head(ctx context.Context, key string) (blob.Info, error) {
	out, err := s.client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return blob.Info{}, notFound(err)
	}
	return blob.Info{
		Key:         key,
		Size:        aws.ToInt64(out.ContentLength),
		ContentType: aws.ToString(out.ContentType),
		Modified:    aws.ToTime(out.LastModified),
	}, nil
}

// Delete implements blob.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blob.ValidKey(key); err != nil {
		return fmt.Errorf("blob/s3: delete: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blob/s3: delete %s: %w", key, err)
	}
	if _, err := s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}); err != nil {
		return fmt.Errorf("blob/s3: delete %s: %w", key, err)
	}
	return nil
}

// List implements blob.Store: S3 lists keys in UTF-8 byte order, which is
// the port's order.
func (s *Store) List(ctx context.Context, prefix string, limit int) ([]blob.Info, bool, error) {
	if err := blob.ValidPrefix(prefix); err != nil {
		return nil, false, fmt.Errorf("blob/s3: list: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("blob/s3: list %q: %w", prefix, err)
	}
	if limit <= 0 {
		limit = 1000
	}
	infos := []blob.Info{}
	var token *string
	for {
		out, err := s.client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{
			Bucket:            aws.String(s.bucket),
			Prefix:            aws.String(prefix),
			MaxKeys:           aws.Int32(int32(min(limit-len(infos), s.pageSize))),
			ContinuationToken: token,
		})
		if err != nil {
			return nil, false, fmt.Errorf("blob/s3: list %q: %w", prefix, err)
		}
		for _, o := range out.Contents {
			infos = append(infos, blob.Info{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), Modified: aws.ToTime(o.LastModified)})
		}
		truncated := aws.ToBool(out.IsTruncated)
		if !truncated || len(infos) >= limit {
			// Truncated means keys remain after this page: "more" exactly.
			return infos[:min(len(infos), limit)], truncated || len(infos) > limit, nil
		}
		if out.NextContinuationToken == nil {
			return nil, false, fmt.Errorf("blob/s3: list %q: truncated page without a continuation token", prefix)
		}
		token = out.NextContinuationToken
	}
}

// DeletePrefix implements blob.Store, a page of keys at a time: each
// ListObjectsV2 page (at most 1000 keys) is one DeleteObjects call.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	if prefix == "" {
		return fmt.Errorf("blob/s3: delete prefix: %w: empty prefix (it would delete every file)", blob.ErrInvalidKey)
	}
	if err := blob.ValidPrefix(prefix); err != nil {
		return fmt.Errorf("blob/s3: delete prefix: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blob/s3: delete prefix %q: %w", prefix, err)
	}
	pages := awss3.NewListObjectsV2Paginator(s.client, &awss3.ListObjectsV2Input{
		Bucket:  aws.String(s.bucket),
		Prefix:  aws.String(prefix),
		MaxKeys: aws.Int32(int32(s.pageSize)),
	})
	deleted := 0
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("blob/s3: delete prefix %q: list after %d deleted: %w", prefix, deleted, err)
		}
		if len(page.Contents) == 0 {
			continue
		}
		ids := make([]types.ObjectIdentifier, len(page.Contents))
		for i, o := range page.Contents {
			ids[i] = types.ObjectIdentifier{Key: o.Key}
		}
		out, err := s.client.DeleteObjects(ctx, &awss3.DeleteObjectsInput{
			Bucket: aws.String(s.bucket),
			// Quiet: the answer lists failures only, not 1000 successes.
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
		})
		if err != nil {
			return fmt.Errorf("blob/s3: delete prefix %q: after %d deleted: %w", prefix, deleted, err)
		}
		// DeleteObjects succeeds as a call even when keys fail one by one.
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("blob/s3: delete prefix %q: %d keys not deleted, first %s: %s %s",
				prefix, len(out.Errors), aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
		}
		deleted += len(ids)
	}
	return nil
}

// DownloadURL implements blob.Store: a presigned GetObject URL valid for
// ttl (at most 7 days, SigV4's limit; with temporary credentials, as on
// Lambda, no longer than they are), asking S3 to answer with
// Content-Disposition: attachment and the file name (the key's last segment
// when filename is empty). It checks that the file exists first, so that a
// client is never sent to an S3 error page.
func (s *Store) DownloadURL(ctx context.Context, key, filename string, ttl time.Duration) (string, bool, error) {
	if err := blob.ValidKey(key); err != nil {
		return "", false, fmt.Errorf("blob/s3: download url: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", false, fmt.Errorf("blob/s3: download url %s: %w", key, err)
	}
	if ttl < time.Second || ttl > maxTTL {
		return "", false, fmt.Errorf("blob/s3: download url %s: validity %v outside [1s, %v]", key, ttl, maxTTL)
	}
	if _, err := s.head(ctx, key); err != nil {
		return "", false, fmt.Errorf("blob/s3: download url %s: %w", key, err)
	}
	if strings.TrimSpace(filename) == "" {
		filename = path.Base(key)
	}
	req, err := s.presign.PresignGetObject(ctx, &awss3.GetObjectInput{
		Bucket:                     aws.String(s.bucket),
		Key:                        aws.String(key),
		ResponseContentDisposition: aws.String(attachment(filename)),
	}, awss3.WithPresignExpires(ttl))
	if err != nil {
		return "", false, fmt.Errorf("blob/s3: download url %s: %w", key, err)
	}
	return req.URL, true, nil
}

// notFound maps S3's answers for a missing object to blob.ErrNotFound:
// NoSuchKey from GetObject, NotFound from HeadObject (a HEAD answer has no
// body, so a missing bucket looks the same there; GetObject says
// NoSuchBucket, which stays an error).
func notFound(err error) error {
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	var api smithy.APIError
	if errors.As(err, &nsk) || errors.As(err, &nf) ||
		(errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound")) {
		return fmt.Errorf("%w (%v)", blob.ErrNotFound, err)
	}
	return err
}

// cleanContentType checks a content type and applies the default. Header
// values cannot hold control characters (Go's HTTP client refuses them, after
// the body may have been read); non-ASCII is refused too, as S3 would not
// store it as given.
func cleanContentType(ct string) (string, error) {
	for i := range len(ct) {
		if c := ct[i]; c < 0x20 || c > 0x7e {
			return "", fmt.Errorf("content type %q: byte %#x at %d is not printable ASCII", ct, c, i)
		}
	}
	if ct = strings.TrimSpace(ct); ct == "" {
		return defaultContentType, nil
	}
	return ct, nil
}

// attachment is the Content-Disposition of a download named filename
// (RFC 6266): a quoted ASCII name for every client, plus the exact name in
// RFC 8187 encoding when it is not plain ASCII, which browsers prefer.
// Control characters and path separators become "_": a name is no path.
func attachment(filename string) string {
	var clean, ascii strings.Builder
	for _, r := range filename {
		switch {
		case r < 0x20 || r == 0x7f || r == '/' || r == '\\':
			r = '_'
		}
		clean.WriteRune(r)
		if r > 0x7e || r == '"' {
			r = '_' // outside a quoted-string without escapes, which some clients mishandle
		}
		ascii.WriteRune(r)
	}
	v := `attachment; filename="` + ascii.String() + `"`
	if ascii.String() != clean.String() {
		v += "; filename*=UTF-8''" + encodeRFC8187(clean.String())
	}
	return v
}

// encodeRFC8187 percent-encodes s but for RFC 8187's attr-chars.
func encodeRFC8187(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
