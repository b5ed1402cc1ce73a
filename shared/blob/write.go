package blob

import (
	"context"
	"io"
)

// Write stores under key what write writes, streamed through a pipe, so
// that nothing is held whole (a merged output, a derived format, an
// archive). The writer runs in the caller's goroutine, the store's Put in
// another. A write that fails aborts the store: Put reads its error, and
// the file is not written (Put is atomic). A Put that fails early stops
// the writer: its next write fails. Both errors come back apart, since
// callers judge them differently (a bad input against a failed store).
func Write(ctx context.Context, s Store, key, contentType string, write func(w io.Writer) error) (writeErr, putErr error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := s.Put(ctx, key, pr, contentType)
		pr.CloseWithError(err) // unblocks the writer when Put fails early
		done <- err
	}()
	writeErr = write(pw)
	pw.CloseWithError(writeErr)
	return writeErr, <-done
}
