package blob_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/blob/dir"
)

func TestWrite(t *testing.T) {
	bad := errors.New("bad input")
	for _, tt := range []struct {
		name    string
		write   func(io.Writer) error
		wantErr error
		stored  string // "" when no file is stored
	}{
		{"whole", func(w io.Writer) error { _, err := io.WriteString(w, "a,b\n1,2\n"); return err }, nil, "a,b\n1,2\n"},
		{"large", func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Repeat("x", 1<<20))
			return err
		}, nil, strings.Repeat("x", 1<<20)},
		{"write fails", func(w io.Writer) error { io.WriteString(w, "half"); return bad }, bad, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := dir.New(filepath.Join(t.TempDir(), "files"))
			if err != nil {
				t.Fatal(err)
			}
			werr, perr := blob.Write(ctx, s, "jobs/x/out.csv", "text/csv", tt.write)
			if !errors.Is(werr, tt.wantErr) {
				t.Errorf("write error %v, want %v", werr, tt.wantErr)
			}
			if (perr != nil) != (tt.wantErr != nil) {
				t.Errorf("put error %v", perr)
			}
			rc, _, err := s.Open(ctx, "jobs/x/out.csv")
			if tt.stored == "" {
				if !errors.Is(err, blob.ErrNotFound) {
					t.Errorf("a failed write stored a file (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, _ := io.ReadAll(rc)
			if string(b) != tt.stored {
				t.Errorf("stored %d bytes, want %d", len(b), len(tt.stored))
			}
		})
	}
}
