package rowdiff

import (
	"slices"
	"strings"
)

// DefaultSampleCap is the default number of keys a sample array holds.
const DefaultSampleCap = 20

// KeyName is an entry of the samples' new and removed arrays.
type KeyName struct {
	Key string `json:"key"`
	Nom string `json:"nom"`
}

// ModifiedSample is an entry of the samples' modified array. Before and
// After hold the tracked fields of each row, as values (formula guard
// undone, trimmed).
type ModifiedSample struct {
	Key           string            `json:"key"`
	Nom           string            `json:"nom"`
	Before        map[string]string `json:"before"`
	After         map[string]string `json:"after"`
	ChangedFields []string          `json:"changed_fields"`
}

// SampleSet is a run's samples object (spec "Veille run": samples).
type SampleSet struct {
	New      []KeyName        `json:"new"`
	Removed  []KeyName        `json:"removed"`
	Modified []ModifiedSample `json:"modified"`
}

// Samples collects a capped preview of each bucket while Diff runs: pass
// its Add as emit, or call it from emit. It keeps, per bucket, the entries
// with the smallest keys (byte order), listed in key order. The choice
// depends only on the set of changes, not on the order Diff emits them in,
// which changes when the inputs are partitioned; and a place id is as
// good as a random draw, so the preview is spread over the file.
type Samples struct {
	cap      int
	new      []KeyName
	removed  []KeyName
	modified []ModifiedSample
}

// NewSamples returns a collector of at most cap entries per bucket
// (DefaultSampleCap when cap <= 0).
func NewSamples(cap int) *Samples {
	if cap <= 0 {
		cap = DefaultSampleCap
	}
	return &Samples{cap: cap}
}

// Add records c when its key is among the smallest of its bucket so far.
// Unchanged keys are ignored. It never fails: the error is emit's.
func (s *Samples) Add(c Change) error {
	switch c.Kind {
	case KindNew:
		s.new = insertCapped(s.new, s.cap, c.Key, func() KeyName { return KeyName{Key: c.Key, Nom: c.After.Value("nom")} },
			func(k KeyName) string { return k.Key })
	case KindRemoved:
		s.removed = insertCapped(s.removed, s.cap, c.Key, func() KeyName { return KeyName{Key: c.Key, Nom: c.Before.Value("nom")} },
			func(k KeyName) string { return k.Key })
	case KindModified:
		s.modified = insertCapped(s.modified, s.cap, c.Key, func() ModifiedSample {
			return ModifiedSample{Key: c.Key, Nom: c.After.Value("nom"), Before: trackedValues(c.Before), After: trackedValues(c.After),
				ChangedFields: slices.Clone(c.ChangedFields)}
		}, func(m ModifiedSample) string { return m.Key })
	}
	return nil
}

// Result returns the samples; arrays are empty, never null, in JSON.
func (s *Samples) Result() SampleSet {
	out := SampleSet{New: slices.Clone(s.new), Removed: slices.Clone(s.removed), Modified: slices.Clone(s.modified)}
	if out.New == nil {
		out.New = []KeyName{}
	}
	if out.Removed == nil {
		out.Removed = []KeyName{}
	}
	if out.Modified == nil {
		out.Modified = []ModifiedSample{}
	}
	for i := range out.Modified {
		if out.Modified[i].ChangedFields == nil {
			out.Modified[i].ChangedFields = []string{}
		}
	}
	return out
}

// insertCapped inserts the entry build returns at its key's place in list,
// sorted by key and at most cap long. build runs only when the entry stays:
// past the first cap keys, most calls cost one comparison.
func insertCapped[T any](list []T, cap int, key string, build func() T, keyOf func(T) string) []T {
	if len(list) == cap && key >= keyOf(list[cap-1]) {
		return list
	}
	i, _ := slices.BinarySearchFunc(list, key, func(e T, k string) int { return strings.Compare(keyOf(e), k) })
	if len(list) == cap {
		list = list[:cap-1]
	}
	return slices.Insert(list, i, build())
}

// trackedValues returns the tracked fields the row's header has.
func trackedValues(r Row) map[string]string {
	out := make(map[string]string, len(trackedFields))
	for _, f := range trackedFields {
		if r.Has(f) {
			out[f] = r.Value(f)
		}
	}
	return out
}
