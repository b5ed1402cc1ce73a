// Package data embeds the generated gazetteer: every country, region and
// department with its outline, every French commune and arrondissement,
// and the world's towns of 15,000 people or more. tools/gazetteer writes
// gazetteer.bin (`make gazetteer`); docs/gazetteer.md describes it.
package data

import (
	_ "embed"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// bin is embedded as a string so that the decoded gazetteer's strings and
// still-encoded shapes point into it instead of copies.
//
//go:embed gazetteer.bin
var bin string

// Load decodes the embedded gazetteer, anew on each call: the caller keeps
// the result (the service loads it once, at init). It takes a few
// milliseconds; shapes are decoded when first asked for.
func Load() (*gazetteer.Gazetteer, error) { return gazetteer.DecodeString(bin) }

// Size is the size of the embedded file, in bytes.
func Size() int { return len(bin) }
