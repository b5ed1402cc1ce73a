package rowdiff

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Partitioning. When a table outgrows its budget, the rows still to diff
// are spread by their key's hash over fanout partition files per input; a
// key's rows all land in the same partition, so partitions are diffed one
// at a time, each a fraction of the whole. A partition still too big is
// split again on the next bits of the hash.
const (
	fanoutBits = 4
	fanout     = 1 << fanoutBits
	// maxDepth stops splitting: 16^8 partitions is far more than any input
	// needs, and a table past its budget at that depth can only come from
	// a flood of hash collisions.
	maxDepth = 8
	// spillBufferSize is the write buffer of each partition file: 2 ×
	// fanout of them are open while a level is written.
	spillBufferSize = 64 << 10
)

// route is the partition of hash at depth: the top bits first, four more a
// level, so the low bits stay free for the table's slots.
func route(hash uint64, depth int) int {
	return int(hash>>(64-fanoutBits*(depth+1))) & (fanout - 1)
}

// record is a row (or a seen key) on its way through the diff.
type record struct {
	kind byte
	hash uint64
	key  []byte
	line []byte
}

// source yields records; io.EOF after the last.
type source interface {
	next(rec *record) error
}

// spillFile is a partition file being written, then read.
type spillFile struct {
	f  *os.File
	bw *bufio.Writer
	n  int // records written
}

// spillSet is the partition files of one level and one input.
type spillSet struct {
	dir   string
	files [fanout]*spillFile
	hdr   [1 + 8 + 2*binary.MaxVarintLen64]byte
}

// write appends rec to its partition, creating the file on first use so an
// empty partition costs nothing.
func (s *spillSet) write(depth int, rec *record) error {
	p := route(rec.hash, depth)
	sf := s.files[p]
	if sf == nil {
		f, err := os.CreateTemp(s.dir, "rowdiff-*.part")
		if err != nil {
			return fmt.Errorf("rowdiff: partition file: %w", err)
		}
		sf = &spillFile{f: f, bw: bufio.NewWriterSize(f, spillBufferSize)}
		s.files[p] = sf
	}
	h := s.hdr[:0]
	h = append(h, rec.kind)
	h = binary.LittleEndian.AppendUint64(h, rec.hash)
	h = binary.AppendUvarint(h, uint64(len(rec.key)))
	h = binary.AppendUvarint(h, uint64(len(rec.line)))
	sf.bw.Write(h)
	sf.bw.Write(rec.key)
	if _, err := sf.bw.Write(rec.line); err != nil {
		return fmt.Errorf("rowdiff: write partition: %w", err)
	}
	sf.n++
	return nil
}

// finish flushes every file and rewinds it for reading. Its write buffers
// are dropped here, before the partitions are diffed.
func (s *spillSet) finish() error {
	for _, sf := range s.files {
		if sf == nil {
			continue
		}
		if err := sf.bw.Flush(); err != nil {
			return fmt.Errorf("rowdiff: write partition: %w", err)
		}
		sf.bw = nil
		if _, err := sf.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("rowdiff: partition file: %w", err)
		}
	}
	return nil
}

// remove closes and deletes partition p (or every one, p < 0).
func (s *spillSet) remove(p int) {
	for i, sf := range s.files {
		if sf == nil || (p >= 0 && i != p) {
			continue
		}
		sf.f.Close()
		os.Remove(sf.f.Name())
		s.files[i] = nil
	}
}

// count is the number of records written to partition p.
func (s *spillSet) count(p int) int {
	if s.files[p] == nil {
		return 0
	}
	return s.files[p].n
}

// source returns a reader of partition p, empty when it has no file.
func (s *spillSet) source(p int) source {
	sf := s.files[p]
	if sf == nil {
		return emptySource{}
	}
	return &spillSource{br: bufio.NewReaderSize(sf.f, readBufferSize)}
}

type emptySource struct{}

func (emptySource) next(*record) error { return io.EOF }

// spillSource reads back a partition file. Records are parsed in the
// reader's buffer and handed out from it when they fit, without a copy.
type spillSource struct {
	br  *bufio.Reader
	buf []byte // a record larger than the reader's buffer
}

func (s *spillSource) next(rec *record) error {
	head, err := s.br.Peek(1 + 8 + 2*binary.MaxVarintLen64)
	if len(head) == 0 && errors.Is(err, io.EOF) {
		return io.EOF
	}
	if len(head) < 1+8+2 {
		return fmt.Errorf("rowdiff: read partition: truncated record: %w", io.ErrUnexpectedEOF)
	}
	kind, hash := head[0], binary.LittleEndian.Uint64(head[1:])
	klen, n1 := binary.Uvarint(head[9:])
	if n1 <= 0 {
		return fmt.Errorf("rowdiff: read partition: bad record length")
	}
	llen, n2 := binary.Uvarint(head[9+n1:])
	if n2 <= 0 || klen+llen > 4*MaxRecordBytes {
		return fmt.Errorf("rowdiff: read partition: bad record length")
	}
	if _, err := s.br.Discard(9 + n1 + n2); err != nil {
		return fmt.Errorf("rowdiff: read partition: %w", err)
	}
	n := int(klen + llen)
	var body []byte
	if n <= s.br.Size() {
		if body, err = s.br.Peek(n); err != nil {
			return fmt.Errorf("rowdiff: read partition: %w", err)
		}
		// Valid until the next call, which is all a source promises.
		s.br.Discard(n)
	} else {
		if cap(s.buf) < n {
			s.buf = make([]byte, n)
		}
		body = s.buf[:n]
		if _, err := io.ReadFull(s.br, body); err != nil {
			return fmt.Errorf("rowdiff: read partition: %w", err)
		}
	}
	rec.kind, rec.hash = kind, hash
	rec.key, rec.line = body[:klen], body[klen:]
	return nil
}
