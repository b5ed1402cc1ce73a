package sim

import (
	"math"

	"github.com/paulmach/orb"
)

// The world's drift. Each place lives from its birth day to its closing
// day. The places of day 0 are a Poisson draw of the category's density
// times the settlement's people; each closes after an exponential lifetime
// of mean meanLifeDays, and new places open at the rate that keeps the
// count stationary (density × people / meanLifeDays a day), drawn epoch by
// epoch so that any day's world is the union of a few cached batches.
const (
	// meanLifeDays makes about 0.1% of places close, and as many open,
	// every day: a few percent a month, faster than real churn (about 10%
	// a year) so that a week's veille already sees differences.
	meanLifeDays = 1000
	// epochDays is the span of days whose openings one batch holds.
	epochDays = 64
	// centreBias concentrates places towards their town's centre: the
	// distance from it is radius × u^centreBias (0.5 would be uniform over
	// the disc).
	centreBias = 0.7
	// The age at day 0 of the places of day 0: minAgeDays plus an
	// exponential of mean meanAgeDays, at most maxAgeDays.
	minAgeDays, meanAgeDays, maxAgeDays = 30, 2000, 7300
	// reviewEraDays is how long before day 0 reviews began: older places
	// gathered none before (map reviews became common in the 2010s).
	reviewEraDays = 8 * 365
)

// skel is a generated place's fixed part: what searches filter and rank
// on. The rest (name, address, phone, site) is drawn from its key when a
// result shows it.
type skel struct {
	pt orb.Point
	// The place is open on days birth ≤ d < close; birth is negative for
	// the places of day 0.
	birth, close int32
	quality      float32 // the mean rating it tends to
	rate         float32 // reviews a day
	phase        float32 // in [0, 1): when its review count steps
}

// batch is the places of one category in one settlement whose birth falls
// in one epoch: epoch 0 holds the places of day 0, epoch k ≥ 1 those that
// open on days (k-1)·epochDays+1 to k·epochDays.
type batch struct {
	id     batchID
	s      *settlement
	key    key
	places []skel
}

func (b *batch) weight() int { return len(b.places) + 1 }

// placeKey is the random key of the batch's i-th place.
func (b *batch) placeKey(i int) key { return b.key.int(int64(i)) }

// epochOf is the last epoch whose places may be open on day d.
func epochOf(d int) int {
	if d <= 0 {
		return 0
	}
	return (d + epochDays - 1) / epochDays
}

// batch returns the batch of a settlement, category and epoch, from the
// cache or generated.
func (w *World) batch(s *settlement, c *category, epoch int) *batch {
	id := batchID{int32(s.id), c.key, int32(epoch)}
	if b := w.cache.get(id); b != nil {
		return b
	}
	b := w.generate(id, s, c, epoch)
	w.cache.put(b)
	return b
}

// generate draws a batch. Its size is a Poisson draw; each place is drawn
// from its own key, so a place does not change when others are added.
func (w *World) generate(id batchID, s *settlement, c *category, epoch int) *batch {
	k := w.seed.str(s.country).int(int64(s.kind)).str(s.code).str(c.key).int(int64(epoch))
	b := &batch{id: id, s: s, key: k}
	lambda := s.pop * c.perHead
	if epoch > 0 {
		lambda *= float64(epochDays) / meanLifeDays
	}
	r := k.str("count").rng()
	b.places = make([]skel, r.poisson(lambda))
	cosLat := math.Max(math.Cos(s.center[1]*math.Pi/180), 0.01)
	for i := range b.places {
		b.places[i] = w.drawSkel(b.placeKey(i).rng(), s, c, epoch, cosLat)
	}
	return b
}

// drawSkel draws a place of settlement s: its position in the settlement's
// commune (drawTries draws in its disc, then its centre), its dates and
// its review parameters.
func (w *World) drawSkel(r rng, s *settlement, c *category, epoch int, cosLat float64) skel {
	pt := s.center
	for range drawTries {
		theta := 2 * math.Pi * r.float()
		dist := s.km * math.Pow(r.float(), centreBias)
		p := orb.Point{
			s.center[0] + dist*math.Sin(theta)/(kmPerDegree*cosLat),
			s.center[1] + dist*math.Cos(theta)/kmPerDegree,
		}
		if w.inSettlement(s, p) {
			pt = p
			break
		}
	}
	var birth, close float64
	if epoch == 0 {
		birth = -math.Min(minAgeDays+r.exp(meanAgeDays), maxAgeDays)
		close = 1 + r.exp(meanLifeDays)
	} else {
		birth = float64((epoch-1)*epochDays + 1 + r.intn(epochDays))
		close = birth + 1 + r.exp(meanLifeDays)
	}
	return skel{
		pt:      pt,
		birth:   int32(birth),
		close:   int32(math.Min(close, math.MaxInt32)),
		quality: float32(clamp(4.3+0.35*r.normal(), 3, 5)),
		rate:    float32(c.reviewsPerYear / 365 * math.Exp(0.8*r.normal())),
		phase:   float32(r.float()),
	}
}

func clamp(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }

// open tells whether the place is open on day d.
func (p *skel) open(d int) bool { return int(p.birth) <= d && d < int(p.close) }

// reviews is the place's review count on day d: it steps up at the place's
// rate from its birth (or the review era's), and stops at its closing.
func (p *skel) reviews(d int) int {
	d = min(d, int(p.close)-1)
	if d < p.reviewStart() {
		return 0
	}
	return int(float64(p.rate)*float64(d-p.reviewStart()) + float64(p.phase))
}

// reviewStart is the day the place began gathering reviews.
func (p *skel) reviewStart() int { return max(int(p.birth), -reviewEraDays) }

// rating is the mean rating shown with n reviews: the place's quality
// plus noise that shrinks as reviews add up, redrawn at each new review
// (so ratings move as counts do), rounded to a tenth, within 3.0 to 5.0;
// 0 without reviews.
func (p *skel) rating(k key, n int) float64 {
	if n == 0 {
		return 0
	}
	noise := k.str("rating").int(int64(n)).rng()
	x := float64(p.quality) + 0.6*noise.normal()/math.Sqrt(float64(n))
	return math.Round(clamp(x, 3, 5)*10) / 10
}
