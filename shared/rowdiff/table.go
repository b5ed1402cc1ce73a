package rowdiff

import (
	"bytes"
	"encoding/binary"
)

// Record states. The same bytes mark records in partition files.
const (
	statePrev    byte = 'P' // a row of the previous output, not (yet) matched
	stateMatched byte = 'M' // a row of the previous output matched by a current one
	stateSeen    byte = 'S' // a key seen only in the current output (for its duplicates)
	stateCur     byte = 'C' // a row of the current output (partition files only)
)

// A stored record is its state, the lengths of its key and line (4 bytes
// each) and then the key and the line, back to back in a chunk.
const recordHeader = 1 + 4 + 4

// slot is a cell of the hash table: the key's full hash and where its
// record is. A lookup reads the slot, then the record, whose key and line
// sit together: on a table of a million keys each read is a cache miss,
// and there are two.
type slot struct {
	hash uint64
	ref  ref
}

// ref locates a record: (chunk+1)<<32 | offset, so the zero ref is none.
type ref uint64

// slotSize is the bytes of a slot.
const slotSize = 16

const minSlots = 64

// maxChunk is the arena's allocation unit: big enough for few allocations,
// small enough that a chunk's unused tail is little.
const maxChunk = 1 << 20

// table is an open-addressing hash table of keys, each with its stored
// line, in insertion order. It allocates nothing per key: records are
// copied into large chunks, and it keeps its memory across reset.
type table struct {
	chunks    [][]byte
	cur       int // chunk being filled
	slots     []slot
	n         int   // records
	used      int64 // bytes of records stored
	chunkSize int
	budget    int64
}

func newTable(budget int64) *table {
	cs := int(min(int64(maxChunk), max(budget/16, 4<<10)))
	return &table{chunkSize: cs, slots: make([]slot, minSlots), budget: budget}
}

// size is the memory the table's content accounts for, the quantity held
// under Options.MemBytes: its records and its slot array.
func (t *table) size() int64 { return t.used + int64(len(t.slots))*slotSize }

func (t *table) len() int { return t.n }

// reset empties the table and keeps its chunks for the next partition,
// expected to hold about keys keys.
func (t *table) reset(keys int) {
	for i := range t.chunks {
		t.chunks[i] = t.chunks[i][:0]
	}
	t.cur = 0
	// A fresh slot array sized for the partition rather than the cleared
	// one of the largest so far: its keys sit dense in the cache, and it
	// is not grown (rehashed) a dozen times on the way.
	n := minSlots
	for n < 2*keys && int64(2*n)*slotSize <= t.budget/4 {
		n *= 2
	}
	t.slots = make([]slot, n)
	t.n = 0
	t.used = 0
}

// find returns the record of key, or 0.
func (t *table) find(hash uint64, key []byte) ref {
	mask := uint64(len(t.slots) - 1)
	for i := hash & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.ref == 0 {
			return 0
		}
		if s.hash == hash && bytes.Equal(t.key(s.ref), key) {
			return s.ref
		}
	}
}

// add stores a key that find did not find, with its line and state.
func (t *table) add(state byte, hash uint64, key, line []byte) {
	if (t.n+1)*2 > len(t.slots) {
		t.grow()
	}
	n := recordHeader + len(key) + len(line)
	c := t.room(n)
	buf := t.chunks[c]
	off := len(buf)
	buf = append(buf, state)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(key)))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(line)))
	t.chunks[c] = append(append(buf, key...), line...)
	t.n++
	t.used += int64(n)
	t.place(hash, ref(uint64(c+1)<<32|uint64(off)))
}

// room returns a chunk with n free bytes. Chunks are filled in order and
// never grow once allocated, so records stay where they are and walking
// the chunks walks the records in insertion order.
func (t *table) room(n int) int {
	for ; t.cur < len(t.chunks); t.cur++ {
		if c := t.chunks[t.cur]; cap(c)-len(c) >= n {
			return t.cur
		}
	}
	t.chunks = append(t.chunks, make([]byte, 0, max(n, t.chunkSize)))
	t.cur = len(t.chunks) - 1
	return t.cur
}

func (t *table) place(hash uint64, r ref) {
	mask := uint64(len(t.slots) - 1)
	i := hash & mask
	for t.slots[i].ref != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = slot{hash: hash, ref: r}
}

func (t *table) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	for _, s := range old {
		if s.ref != 0 {
			t.place(s.hash, s.ref)
		}
	}
}

func (t *table) record(r ref) []byte {
	return t.chunks[r>>32-1][uint32(r):]
}

func (t *table) state(r ref) byte { return t.record(r)[0] }

func (t *table) setState(r ref, s byte) { t.record(r)[0] = s }

func (t *table) key(r ref) []byte {
	rec := t.record(r)
	k := binary.LittleEndian.Uint32(rec[1:])
	return rec[recordHeader : recordHeader+k]
}

func (t *table) line(r ref) []byte {
	rec := t.record(r)
	k := binary.LittleEndian.Uint32(rec[1:])
	l := binary.LittleEndian.Uint32(rec[5:])
	return rec[recordHeader+k : recordHeader+k+l]
}

// each calls fn with every record in insertion order (removed keys, a
// spill), stopping at fn's first error.
func (t *table) each(fn func(r ref) error) error {
	for c := 0; c <= t.cur && c < len(t.chunks); c++ {
		buf := t.chunks[c]
		for off := 0; off < len(buf); {
			r := ref(uint64(c+1)<<32 | uint64(off))
			if err := fn(r); err != nil {
				return err
			}
			k := binary.LittleEndian.Uint32(buf[off+1:])
			l := binary.LittleEndian.Uint32(buf[off+5:])
			off += recordHeader + int(k) + int(l)
		}
	}
	return nil
}

// touchSlot reads the first slot a lookup of hash probes, to bring it into
// the cache ahead of the lookup; the result means nothing.
func (t *table) touchSlot(hash uint64) uint64 {
	return t.slots[hash&uint64(len(t.slots)-1)].hash
}

// touchRecord reads the record the first slot of hash points to, when that
// slot holds this hash (the usual hit), ahead of the lookup.
func (t *table) touchRecord(hash uint64) uint64 {
	s := t.slots[hash&uint64(len(t.slots)-1)]
	if s.ref == 0 || s.hash != hash {
		return 0
	}
	return uint64(t.record(s.ref)[0])
}
