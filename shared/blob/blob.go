// Package blob is the file store port: job outputs (CSV parts, merged CSV,
// JSON, XLSX), re-hosted logos, export archives. Locally a directory
// (blob/dir); on AWS an S3 bucket (blob/s3). Files are streamed both ways:
// nothing here holds a whole file in memory. Drivers pass the contract suite
// in blob/blobtest.
//
// Keys are slash-separated relative paths ("jobs/<id>/output.csv"): 1 to 1024
// bytes of UTF-8, no empty segment, no "." or ".." segment, no leading slash,
// no NUL or backslash. A key names one file; there are no directories, only
// prefixes.
package blob

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned when no file has the key.
var ErrNotFound = errors.New("blob: not found")

// ErrInvalidKey is returned for a key outside the rules above.
var ErrInvalidKey = errors.New("blob: invalid key")

// Info describes a stored file.
type Info struct {
	Key         string
	Size        int64
	ContentType string
	Modified    time.Time
}

// Store is the file store port.
type Store interface {
	// Put stores the content of r under key, replacing any file there. The
	// write is atomic: readers see the old file or the whole new one, never a
	// part. It returns the number of bytes stored.
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	// Open streams the file, or returns ErrNotFound.
	Open(ctx context.Context, key string) (io.ReadCloser, Info, error)
	// Stat describes the file, or returns ErrNotFound.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes the file; deleting an absent file is not an error.
	Delete(ctx context.Context, key string) error
	// List returns the files whose key starts with prefix, in key order, at
	// most limit of them (limit <= 0 means 1000), and whether more remain.
	List(ctx context.Context, prefix string, limit int) ([]Info, bool, error)
	// DeletePrefix removes every file whose key starts with prefix (a job's
	// outputs, an account's files). An empty prefix is refused.
	DeletePrefix(ctx context.Context, prefix string) error
	// DownloadURL returns a time-limited address from which a client can GET
	// the file directly, with Content-Disposition set to attachment with the
	// filename, so that a large file never passes through the API process;
	// ok is false when the driver has no such address (the local directory):
	// the caller then streams the file itself.
	DownloadURL(ctx context.Context, key, filename string, ttl time.Duration) (url string, ok bool, err error)
}
