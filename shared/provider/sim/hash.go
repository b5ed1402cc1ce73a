package sim

import "math"

// key is a position in the world's tree of random streams: every random
// choice of the simulation is drawn from a key derived from the world's
// seed and the names of what is being drawn (country, settlement code,
// category, epoch, index, purpose). Nothing depends on a shared generator's
// state, so any part of the world can be regenerated alone, in any order,
// from any process.
type key uint64

// mix is the splitmix64 finaliser: a bijection that spreads every input
// bit over the output.
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

const golden = 0x9e3779b97f4a7c15

// int derives the child key named by n.
func (k key) int(n int64) key { return key(mix(uint64(k) + golden ^ uint64(n)*0xd6e8feb86659fd93)) }

// str derives the child key named by s (FNV-1a of s, then int).
func (k key) str(s string) key {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return k.int(int64(h))
}

// float is the key read as a uniform number in [0, 1).
func (k key) float() float64 { return float64(mix(uint64(k))>>11) / (1 << 53) }

// rng is a splitmix64 stream started at a key: the sequence of draws one
// generated thing needs. It is a value, never shared between goroutines.
type rng struct{ s uint64 }

func (k key) rng() rng { return rng{uint64(k)} }

func (r *rng) next() uint64 {
	r.s += golden
	return mix(r.s)
}

// float is uniform in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// intn is uniform in [0, n); n > 0.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// between is uniform in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance is true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// normal is a standard normal draw (Box-Muller).
func (r *rng) normal() float64 {
	u := 1 - r.float() // (0, 1]: log is finite
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*r.float())
}

// exp is an exponential draw of the given mean.
func (r *rng) exp(mean float64) float64 { return -mean * math.Log(1-r.float()) }

// poisson draws a Poisson count of mean lambda: Knuth's product method
// for small means, the rounded normal approximation above 30, where it
// is within a fraction of a percent and takes constant time.
func (r *rng) poisson(lambda float64) int {
	switch {
	case lambda <= 0:
		return 0
	case lambda > 30:
		return max(0, int(math.Round(lambda+math.Sqrt(lambda)*r.normal())))
	}
	limit, prod, n := math.Exp(-lambda), r.float(), 0
	for prod > limit {
		prod *= r.float()
		n++
	}
	return n
}

// pick returns one of xs, uniformly.
func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }
