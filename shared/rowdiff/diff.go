package rowdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"

	"github.com/prospectdata/svc/shared/export"
)

// Kind is the bucket of a key, named as the spec's run counters.
type Kind string

// The four buckets (spec "Veille run"): every key of either output is in
// exactly one.
const (
	KindNew       Kind = "new"       // in the current output only
	KindRemoved   Kind = "removed"   // in the previous output only
	KindModified  Kind = "modified"  // in both, a tracked field differs
	KindUnchanged Kind = "unchanged" // in both, tracked fields equal
)

// Change is one key's bucket and rows. Before is the previous output's row
// (zero for a new key), After the current one's (zero for a removed key);
// ChangedFields lists the tracked fields that differ, in tracked order
// (Modified only). Rows are the receiver's to keep.
type Change struct {
	Kind          Kind
	Key           string
	Before, After Row
	ChangedFields []string
}

// Counts are the run's counters. Total and PrevTotal count distinct keys,
// so Total = New + Modified + Unchanged and PrevTotal = Removed + Modified
// + Unchanged; Rows and PrevRows count the data rows read, repeats of a
// key included.
type Counts struct {
	Total     int `json:"total_count"`
	PrevTotal int `json:"prev_total_count"`
	New       int `json:"new_count"`
	Removed   int `json:"removed_count"`
	Modified  int `json:"modified_count"`
	Unchanged int `json:"unchanged_count"`
	// Duplicates are rows of either output whose key an earlier row of the
	// same output had: the first is diffed, the others only counted.
	Duplicates     int `json:"duplicate_count"`
	PrevDuplicates int `json:"prev_duplicate_count"` // of Duplicates, those of the previous output
	Rows           int `json:"rows_count"`
	PrevRows       int `json:"prev_rows_count"`
}

// DefaultMemBytes is the default Options.MemBytes.
const DefaultMemBytes = 64 << 20

// Options tune Diff.
type Options struct {
	// EmitUnchanged also calls emit for unchanged keys.
	EmitUnchanged bool
	// TempDir holds the partition files when the inputs do not fit in
	// MemBytes ("" is os.TempDir()). They are deleted before Diff returns.
	TempDir string
	// MemBytes caps the in-memory table (stored rows and keys with their
	// bookkeeping); beyond it the inputs are partitioned on disk. 0 is
	// DefaultMemBytes.
	MemBytes int64
}

// ctxCheckEvery is how many records go between two looks at the context.
const ctxCheckEvery = 1024

// Diff compares two output CSVs, prev (the previous run's) and cur, key by
// key (Key) on the tracked fields (TrackedFields), calls emit for every
// new, removed and modified key (and unchanged, with EmitUnchanged) and
// returns the counts. An error from emit stops the diff and is returned.
//
// Memory is bounded whatever the inputs' sizes: the previous output's rows
// are held in a table of at most opt.MemBytes; past that, both inputs are
// spread by key hash over partition files in opt.TempDir and diffed one
// partition at a time (see the package documentation for the bound).
// emit sees new, modified and unchanged keys in the current output's order
// and removed keys after them in the previous output's order, partition by
// partition when partitioned.
func Diff(ctx context.Context, prev, cur io.Reader, opt Options, emit func(Change) error) (Counts, error) {
	if opt.MemBytes <= 0 {
		opt.MemBytes = DefaultMemBytes
	}
	if opt.TempDir == "" {
		opt.TempDir = os.TempDir()
	}
	if emit == nil {
		emit = func(Change) error { return nil }
	}
	if err := ctx.Err(); err != nil {
		return Counts{}, err
	}
	seed := maphash.MakeSeed()
	ps, err := newCSVSource(prev, "previous", statePrev, seed)
	if err != nil {
		return Counts{}, err
	}
	cs, err := newCSVSource(cur, "current", stateCur, seed)
	if err != nil {
		return Counts{}, err
	}
	d := &differ{ctx: ctx, opt: opt, emit: emit, seed: seed, prevHdr: ps.hdr, curHdr: cs.hdr, pairs: trackedPairs(ps.hdr, cs.hdr)}
	d.sameLayout = true
	for _, p := range d.pairs {
		d.sameLayout = d.sameLayout && p.prev == p.cur
	}
	if err := d.run(ps, cs, 0, newTable(opt.MemBytes)); err != nil {
		return Counts{}, err
	}
	c := d.counts
	c.Rows, c.PrevRows = cs.rows, ps.rows
	c.Total = c.New + c.Modified + c.Unchanged
	c.PrevTotal = c.Removed + c.Modified + c.Unchanged
	return c, nil
}

// differ is the state of one Diff.
type differ struct {
	ctx             context.Context
	opt             Options
	emit            func(Change) error
	seed            maphash.Seed // of the keys' hashes, the same for both inputs
	prevHdr, curHdr []string
	pairs           []fieldPair
	sameLayout      bool // tracked fields at the same positions: equal lines, equal fields
	prevSp, curSp   splitter
	counts          Counts
	ticks           int
}

func (d *differ) tick() error {
	if d.ticks++; d.ticks%ctxCheckEvery == 0 {
		return d.ctx.Err()
	}
	return nil
}

// over tells whether t must be spilled: past its budget, with at least two
// keys to spread, and splitting still possible.
func (d *differ) over(t *table, depth int) bool {
	return t.size() > d.opt.MemBytes && t.len() >= 2 && depth < maxDepth
}

// run diffs prev against cur with t, empty, as working memory: prev's
// records go into t, then cur's are looked up in it. When t outgrows its
// budget, what t holds and what the sources have left are partitioned and
// diffed partition by partition (spill).
func (d *differ) run(prev, cur source, depth int, t *table) error {
	prev, cur = newPrefetchSource(prev, t), newPrefetchSource(cur, t)
	var rec record
	for {
		if err := d.tick(); err != nil {
			return err
		}
		err := prev.next(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if t.find(rec.hash, rec.key) != 0 {
			// Only previous rows can meet here: the table's keys were
			// unique when they were spilled.
			d.counts.Duplicates++
			d.counts.PrevDuplicates++
			continue
		}
		t.add(rec.kind, rec.hash, rec.key, rec.line)
		if d.over(t, depth) {
			return d.spill(t, prev, cur, depth)
		}
	}
	for {
		if err := d.tick(); err != nil {
			return err
		}
		err := cur.next(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		r := t.find(rec.hash, rec.key)
		if r == 0 {
			d.counts.New++
			if err := d.emit(Change{Kind: KindNew, Key: string(rec.key), After: d.row(&d.curSp, d.curHdr, rec.line)}); err != nil {
				return err
			}
			t.add(stateSeen, rec.hash, rec.key, nil) // for its duplicates
			if d.over(t, depth) {
				return d.spill(t, nil, cur, depth)
			}
			continue
		}
		if t.state(r) != statePrev {
			d.counts.Duplicates++
			continue
		}
		t.setState(r, stateMatched)
		if err := d.compare(t.line(r), &rec); err != nil {
			return err
		}
	}
	return t.each(func(r ref) error {
		if t.state(r) != statePrev {
			return nil
		}
		if err := d.tick(); err != nil {
			return err
		}
		d.counts.Removed++
		return d.emit(Change{Kind: KindRemoved, Key: string(t.key(r)), Before: d.row(&d.prevSp, d.prevHdr, t.line(r))})
	})
}

// compare puts a key present in both outputs in modified or unchanged.
func (d *differ) compare(prevLine []byte, rec *record) error {
	if d.sameLayout && bytes.Equal(prevLine, rec.line) {
		// The usual unchanged row: the same bytes, no cell to read.
		d.counts.Unchanged++
		if !d.opt.EmitUnchanged {
			return nil
		}
		return d.emit(Change{Kind: KindUnchanged, Key: string(rec.key),
			Before: d.row(&d.prevSp, d.prevHdr, prevLine), After: d.row(&d.curSp, d.curHdr, rec.line)})
	}
	if err := d.prevSp.split(prevLine); err != nil {
		return fmt.Errorf("rowdiff: stored row: %w", err)
	}
	if err := d.curSp.split(rec.line); err != nil {
		return fmt.Errorf("rowdiff: stored row: %w", err)
	}
	var changed []string
	for _, p := range d.pairs {
		if !equalValues(p.kind, d.prevSp.cell(p.prev), d.curSp.cell(p.cur)) {
			changed = append(changed, p.name)
		}
	}
	kind := KindModified
	if len(changed) == 0 {
		kind = KindUnchanged
		d.counts.Unchanged++
		if !d.opt.EmitUnchanged {
			return nil
		}
	} else {
		d.counts.Modified++
	}
	return d.emit(Change{Kind: kind, Key: string(rec.key), ChangedFields: changed,
		Before: NewRow(d.prevHdr, d.prevSp.strings(len(d.prevHdr))), After: NewRow(d.curHdr, d.curSp.strings(len(d.curHdr)))})
}

// row returns line, a validated record, as a Row of its own strings.
func (d *differ) row(sp *splitter, hdr []string, line []byte) Row {
	_ = sp.split(line) // validated when first read
	return NewRow(hdr, sp.strings(len(hdr)))
}

// spill spreads what t holds, then what prevRest (nil once prev is read)
// and curRest have left, over partition files, and diffs the partitions
// one by one with t, emptied, as their working memory.
func (d *differ) spill(t *table, prevRest, curRest source, depth int) error {
	for _, src := range []source{prevRest, curRest} {
		if p, ok := src.(*prefetchSource); ok {
			p.stopPrefetch()
		}
	}
	ps := &spillSet{dir: d.opt.TempDir}
	cs := &spillSet{dir: d.opt.TempDir}
	defer ps.remove(-1)
	defer cs.remove(-1)
	// The table's keys go first and in order: earlier rows than the rest,
	// so a partition keeps first occurrences first and rows in file order.
	err := t.each(func(r ref) error {
		if err := d.tick(); err != nil {
			return err
		}
		key := t.key(r)
		rec := record{kind: t.state(r), hash: maphash.Bytes(d.seed, key), key: key, line: t.line(r)}
		return ps.write(depth, &rec)
	})
	if err != nil {
		return err
	}
	if prevRest != nil {
		if err := d.copyTo(ps, prevRest, depth); err != nil {
			return err
		}
	}
	if err := d.copyTo(cs, curRest, depth); err != nil {
		return err
	}
	if err := ps.finish(); err != nil {
		return err
	}
	if err := cs.finish(); err != nil {
		return err
	}
	for p := range fanout {
		if ps.files[p] == nil && cs.files[p] == nil {
			continue
		}
		// The partition's previous records, and a tenth of its current
		// ones for new keys: a guess, the table grows past it if needed.
		t.reset(ps.count(p) + cs.count(p)/10)
		if err := d.run(ps.source(p), cs.source(p), depth+1, t); err != nil {
			return err
		}
		ps.remove(p)
		cs.remove(p)
	}
	return nil
}

// copyTo writes what src has left to the partitions of set.
func (d *differ) copyTo(set *spillSet, src source, depth int) error {
	var rec record
	for {
		if err := d.tick(); err != nil {
			return err
		}
		err := src.next(&rec)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := set.write(depth, &rec); err != nil {
			return err
		}
	}
}

// csvSource reads an output CSV as records keyed by Key.
type csvSource struct {
	side string
	rr   *recordReader
	sp   splitter
	lc   lineCells
	hdr  []string
	k    keyer
	kind byte
	seed maphash.Seed
	key  []byte
	rows int
}

func newCSVSource(r io.Reader, side string, kind byte, seed maphash.Seed) (*csvSource, error) {
	rr, err := newRecordReader(r)
	if err != nil {
		return nil, lineError(side, err)
	}
	s := &csvSource{side: side, rr: rr, kind: kind, seed: seed}
	if s.hdr, err = readHeader(rr, &s.sp); err != nil {
		return nil, lineError(side, err)
	}
	s.k = newKeyer(s.hdr)
	return s, nil
}

func (s *csvSource) next(rec *record) error {
	line, err := s.rr.next()
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil {
		return lineError(s.side, err)
	}
	s.rows++
	if bytes.IndexByte(line, '"') < 0 {
		if seps := bytes.Count(line, []byte{export.Delimiter}); seps < len(s.hdr) {
			// The usual record: well-formed as it is, one cell read.
			s.lc = lineCells{rec: line, seps: seps}
			s.key = s.k.appendKey(s.key[:0], &s.lc)
			*rec = record{kind: s.kind, hash: maphash.Bytes(s.seed, s.key), key: s.key, line: line}
			return nil
		}
	}
	if err := s.sp.split(line); err != nil {
		return lineError(s.side, s.rr.malformed(err))
	}
	if err := s.sp.checkWidth(len(s.hdr)); err != nil {
		return lineError(s.side, s.rr.malformed(err))
	}
	s.key = s.k.appendKey(s.key[:0], &s.sp)
	*rec = record{kind: s.kind, hash: maphash.Bytes(s.seed, s.key), key: s.key, line: line}
	return nil
}
