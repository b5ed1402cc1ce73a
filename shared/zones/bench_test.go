package zones

import (
	"math/rand/v2"
	"testing"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// BenchmarkResolveCity is the common case: a city, with and without a
// radius. Target: under 50 µs.
func BenchmarkResolveCity(b *testing.B) {
	r, _ := testWorld(b)
	benchCities(b, r)
}

// benchCities resolves the common city forms, one sub-benchmark each.
func benchCities(b *testing.B, r *Resolver) {
	for _, zone := range []string{"Lyon", "Lyon 15km", "Paris 11e", "Saint-Denis (93)"} {
		b.Run(zone, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Resolve("FRA", zone); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResolveCitySynthetic resolves a city among 60,000 communes.
func BenchmarkResolveCitySynthetic(b *testing.B) {
	r, _ := syntheticFrance(b, 60_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Resolve("FRA", "Lyon 15km"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSuggest suggests names for typos (a letter dropped, doubled,
// swapped or changed) over 60,000 synthetic names. Target: a few
// milliseconds at most.
func BenchmarkSuggest(b *testing.B) {
	r, names := syntheticFrance(b, 60_000)
	rng := rand.New(rand.NewPCG(3, 4))
	typos := make([]string, 200)
	for i := range typos {
		typos[i] = typo(rng, names[rng.IntN(len(names))])
	}
	b.Run("typo", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r.Suggest("FRA", typos[i%len(typos)])
			i++
		}
	})
	// An input close to nothing walks the most of the names.
	b.Run("no-match", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if s, ok := r.Suggest("FRA", "Xqzwkj-sur-Pqlvvv"); ok {
				b.Fatalf("suggested %q", s)
			}
		}
	})
	// The whole refusal: readings, suggestion, other countries.
	b.Run("resolve-unknown", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_, _ = r.Resolve("FRA", typos[i%len(typos)])
			i++
		}
	})
}

// typo makes one edit to a name.
func typo(rng *rand.Rand, name string) string {
	n := []byte(gazetteer.Normalize(name))
	i := 1 + rng.IntN(len(n)-2)
	switch rng.IntN(4) {
	case 0:
		return string(append(n[:i:i], n[i+1:]...))
	case 1:
		return string(append(n[:i+1:i+1], n[i:]...))
	case 2:
		n[i], n[i+1] = n[i+1], n[i]
	default:
		n[i] = 'a' + byte(rng.IntN(26))
	}
	return string(n)
}
