package rowdiff

// A lookup in a table much larger than the CPU's caches waits on memory
// twice: for the slot, then for the record it points to. One lookup after
// the other, those waits were most of a diff's time. prefetchSource reads
// records by batches and, before handing them out, touches the slot of
// each in one tight loop, then the record each slot points to in another:
// the loads of a loop do not depend on each other, so the CPU has a whole
// batch of them in flight at once, and the lookups that follow find their
// memory in the cache. (Go has no prefetch instruction; a load the CPU
// can overlap with others is the portable equivalent.)

// batchSize is how many records a batch holds: enough loads in flight to
// cover memory's latency, few enough for the CPU's window of out-of-order
// instructions to take a loop's loads at once.
const batchSize = 16

// prefetchSource wraps a source, reading batchSize records ahead. A record
// it returns stays valid until the next call (spill and run use each one
// before the next).
type prefetchSource struct {
	src   source
	t     *table
	batch [batchSize]aheadRecord
	head  int   // next record to hand out
	n     int   // records in the batch
	err   error // the source's error, returned once the batch is handed out
	sink  uint64
	tmp   record // a field, not a local: given to an interface, a local would be allocated each time
}

type aheadRecord struct {
	rec record
	buf []byte
}

func newPrefetchSource(src source, t *table) *prefetchSource {
	return &prefetchSource{src: src, t: t}
}

// stopPrefetch makes p hand out what it holds, then its source's records
// as they come: a spill copies records to files, and lookups will not
// follow.
func (p *prefetchSource) stopPrefetch() { p.t = nil }

func (p *prefetchSource) next(rec *record) error {
	if p.head == p.n && p.t == nil && p.err == nil {
		return p.src.next(rec)
	}
	if p.head == p.n {
		if p.err != nil {
			return p.err
		}
		p.fill()
		if p.n == 0 {
			return p.err
		}
	}
	*rec = p.batch[p.head].rec
	p.head++
	return nil
}

// fill reads the next batch and brings the memory its lookups will read
// into the cache.
func (p *prefetchSource) fill() {
	p.head, p.n = 0, 0
	for p.n < batchSize {
		rec := &p.tmp
		if err := p.src.next(rec); err != nil {
			p.err = err
			break
		}
		// The source's bytes are valid until its next call: copied.
		a := &p.batch[p.n]
		a.buf = append(append(a.buf[:0], rec.key...), rec.line...)
		a.rec = record{kind: rec.kind, hash: rec.hash, key: a.buf[:len(rec.key)], line: a.buf[len(rec.key):]}
		p.n++
	}
	var sink uint64
	for i := range p.n {
		sink += p.t.touchSlot(p.batch[i].rec.hash)
	}
	for i := range p.n {
		sink += p.t.touchRecord(p.batch[i].rec.hash)
	}
	p.sink += sink
}
