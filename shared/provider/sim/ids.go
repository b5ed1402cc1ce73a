package sim

import (
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/provider"
)

// Place ids are "sim:" + a token naming the place's batch and index,
// "fra-d69381-boulangerie-0-17-k3x9aq": country, settlement code (kind
// letter first), category key, epoch, index and a 30-bit check keyed by
// the world's seed. The token holds all it takes to regenerate the place,
// so Place, Reviews and the fixture web need no table of issued ids and
// agree between processes; it is lower-case letters, digits and hyphens,
// so it is also the host label of the place's website.
const idPrefix = "sim:"

// lowerBase32 spells the check digits.
var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// ref is a parsed place token: the place is the index-th of its batch.
type ref struct {
	cat   *category
	index int
}

// token is the token of the batch's i-th place.
func (w *World) token(b *batch, i int) string {
	src := b.tokenPrefix() + strconv.Itoa(i)
	return src + "-" + w.check(src)
}

// tokenPrefix is the tokens of the batch's places up to their index:
// "fra-d69381-boulangerie-0-".
func (b *batch) tokenPrefix() string {
	return strings.ToLower(b.s.country) + "-" + b.s.tokenCode() + "-" + b.id.cat + "-" + strconv.Itoa(int(b.id.epoch)) + "-"
}

// check is the 6-letter check of a token source.
func (w *World) check(src string) string {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], mix(uint64(w.seed.str("id check").str(src))))
	return lowerBase32.EncodeToString(buf[:4])[:6]
}

// parseToken reads a token back, checking it names a place this world
// generates (on some day); it fails with an error wrapping
// provider.ErrNotFound.
func (w *World) parseToken(tok string) (ref, *batch, error) {
	fail := func(why string) (ref, *batch, error) {
		return ref{}, nil, fmt.Errorf("%w: %q: %s", provider.ErrNotFound, tok, why)
	}
	parts := strings.Split(tok, "-")
	if len(parts) != 6 {
		return fail("malformed")
	}
	src := strings.Join(parts[:5], "-")
	if parts[5] != w.check(src) {
		return fail("not issued by this world")
	}
	epoch, err1 := strconv.Atoi(parts[3])
	index, err2 := strconv.Atoi(parts[4])
	if err1 != nil || err2 != nil || epoch < 0 || index < 0 {
		return fail("malformed")
	}
	s := w.settlements().lookup(w.g, parts[0], parts[1])
	c := w.categoryByKey(parts[2])
	if s == nil || c == nil {
		return fail("unknown settlement or category")
	}
	b := w.batch(s, c, epoch)
	if index >= len(b.places) {
		return fail("no such place")
	}
	return ref{cat: c, index: index}, b, nil
}
