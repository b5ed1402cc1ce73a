package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/provider"
)

// reviewTexts are review texts by star rating (index 1 to 5), French then
// English; an empty text is a rating without comment.
var reviewTexts = [2][6][]string{
	{
		1: {"À éviter.", "Très déçu, accueil désagréable et service bâclé.", "Jamais plus. Aucun professionnalisme.", ""},
		2: {"Déçu par rapport aux avis.", "Attente interminable, résultat moyen.", "Pas à la hauteur du prix.", ""},
		3: {"Correct sans plus.", "Bien mais un peu cher.", "Accueil sympathique, prestation moyenne.", ""},
		4: {"Très bien dans l'ensemble, je reviendrai.", "Bon rapport qualité-prix.", "Équipe agréable et efficace.", "Bonne adresse du quartier.", ""},
		5: {"Excellent, je recommande vivement !", "Toujours parfait, merci à toute l'équipe.", "Accueil chaleureux et travail impeccable.", "Une adresse à ne pas manquer.", "Rien à redire, top !", ""},
	},
	{
		1: {"Avoid.", "Very disappointing, rude staff.", ""},
		2: {"Not as good as the reviews say.", "Long wait, average result.", ""},
		3: {"OK, nothing special.", "Good but a bit pricey.", ""},
		4: {"Very good overall, will come back.", "Friendly and efficient.", ""},
		5: {"Excellent, highly recommended!", "Always perfect, thanks to the team.", ""},
	},
}

// Reviews returns up to limit of the place's latest reviews on the world's
// current day, newest first. The place has ReviewCount reviews that day;
// review j (0 the oldest) was written when the count stepped to j+1, by
// an author, rating and text drawn from its key. A place not yet open is
// not found; a closed place keeps the reviews it had.
func (w *World) Reviews(ctx context.Context, placeID string, limit int) ([]provider.Review, error) {
	tok, ok := strings.CutPrefix(placeID, idPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: %q", provider.ErrNotFound, placeID)
	}
	ref, b, err := w.parseToken(tok)
	if err != nil {
		return nil, err
	}
	if err := w.call(ctx, "reviews"); err != nil {
		return nil, err
	}
	day, err := w.day(ctx)
	if err != nil {
		return nil, err
	}
	p := &b.places[ref.index]
	if int(p.birth) > day {
		return nil, fmt.Errorf("%w: %q is not open yet", provider.ErrNotFound, placeID)
	}
	n := p.reviews(day)
	out := make([]provider.Review, 0, max(0, min(limit, n)))
	for j := n - 1; j >= 0 && len(out) < limit; j-- {
		out = append(out, w.review(b, ref.index, j))
	}
	return out, nil
}

// review is the place's j-th review.
func (w *World) review(b *batch, i, j int) provider.Review {
	p := &b.places[i]
	k := b.placeKey(i)
	r := k.str("review").int(int64(j)).rng()
	l := langOf(b.s.country)
	texts := reviewTexts[0]
	if l != langFR {
		texts = reviewTexts[1]
	}
	stars := int(clamp(math.Round(float64(p.quality)+0.9*r.normal()), 1, 5))
	// The count steps to j+1 at this day (see skel.reviews); the review
	// was written within the day before, or for a place reviewed more
	// than daily within the step before (so reviews stay in order).
	at := float64(p.reviewStart()) + (float64(j)+1-float64(p.phase))/float64(p.rate) - r.float()*math.Min(1, 1/float64(p.rate))
	when := w.opt.Epoch.Add(time.Duration(at * float64(24*time.Hour))).Truncate(time.Second)
	sur := pick(&r, surnames[l])
	out := provider.Review{
		Author: pick(&r, firstNames[l]) + " " + firstLetter(sur) + ".",
		Rating: float64(stars),
		Text:   pick(&r, texts[stars]),
		Time:   when.UTC().Format(time.RFC3339),
	}
	// Owners who answer (about a third) answer most reviews, the bad ones
	// first; drawn from keys of their own so the review above is the same
	// as before replies existed.
	replied := false
	if k.str("owner-replies").float() < ownerReplyShare {
		rr := k.str("owner-reply").int(int64(j)).rng()
		replied = rr.float() < 0.6+0.08*float64(5-stars)
		if replied {
			lang, tone := 0, 0
			if l != langFR {
				lang = 1
			}
			if stars >= 4 {
				tone = 1
			}
			out.OwnerReply = pick(&rr, ownerReplies[lang][tone])
		}
	}
	out.OwnerReplied = &replied
	return out
}

// ownerReplyShare is the share of the world's places whose owner answers
// reviews.
const ownerReplyShare = 0.35

// ownerReplies are owners' answers, French then English, to a poor review
// then to a good one.
var ownerReplies = [2][2][]string{
	{
		{"Nous sommes désolés de votre expérience, contactez-nous pour en parler.", "Merci pour votre retour, nous allons nous améliorer."},
		{"Merci beaucoup pour votre avis, à bientôt !", "Merci, toute l'équipe est ravie."},
	},
	{
		{"We are sorry about your visit; please get in touch.", "Thank you for the feedback, we will improve."},
		{"Thank you so much, see you soon!", "Thanks, the whole team is delighted."},
	},
}

// PlaceID reads the place id back from a place's link (lien_maps).
func (w *World) PlaceID(mapsURL string) (string, bool) {
	tok, ok := strings.CutPrefix(strings.TrimSpace(mapsURL), "https://maps.sim.test/place/")
	if !ok || tok == "" || strings.ContainsAny(tok, "/?#") {
		return "", false
	}
	return idPrefix + tok, true
}

func firstLetter(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}
