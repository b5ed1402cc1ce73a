package rowdiff

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/prospectdata/svc/shared/export"
)

// scrapeHeader is a scrape output's header (shared/engine's columns).
var scrapeHeader = []string{"nom", "site_web", "telephone", "adresse", "rating", "reviews_count", "category",
	"lien_maps", "aggregator_flag", "place_id", "query", "zone"}

// place is one generated business: what a scrape row is made of.
type place struct {
	id              string
	name, site      string
	phone, address  string
	rating, reviews int // rating in tenths
	category        string
}

var (
	genTrades  = []string{"Boulangerie", "Pharmacie", "Garage", "Coiffeur", "Fleuriste", "Brasserie", "Librairie", "Opticien"}
	genFamily  = []string{"Dupont", "Lefèvre", "Martin", "Gauthier", "Rousseau", "Bénard", "Château", "Nguyễn"}
	genStreets = []string{"rue de la République", "avenue Jean-Jaurès", "place Bellecour", "cours Lafayette", "quai Saint-Antoine"}
	genCities  = []string{"69002 Lyon", "75011 Paris", "13001 Marseille", "31000 Toulouse", "33000 Bordeaux"}
)

// genPlace makes place i, the same for the same i.
func genPlace(i int) place {
	r := rand.New(rand.NewPCG(uint64(i), 42))
	trade := genTrades[r.IntN(len(genTrades))]
	name := fmt.Sprintf("%s %s %d", trade, genFamily[r.IntN(len(genFamily))], i)
	return place{
		id:       fmt.Sprintf("ChIJ%016x%07d", r.Uint64(), i),
		name:     name,
		site:     fmt.Sprintf("https://www.%s-%d.fr/", lowerASCII(trade), i),
		phone:    fmt.Sprintf("+33 4 %02d %02d %02d %02d", r.IntN(100), r.IntN(100), r.IntN(100), r.IntN(100)),
		address:  fmt.Sprintf("%d %s, %s, France", 1+r.IntN(150), genStreets[r.IntN(len(genStreets))], genCities[r.IntN(len(genCities))]),
		rating:   10 + r.IntN(41),
		reviews:  r.IntN(2500),
		category: trade,
	}
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// cells is the place as a scrape row.
func (p place) cells() []string {
	return []string{p.name, p.site, p.phone, p.address, strconv.Itoa(p.rating/10) + "." + strconv.Itoa(p.rating%10),
		strconv.Itoa(p.reviews), p.category, "https://maps.google.com/?cid=" + p.id[4:20], "false", p.id,
		lowerASCII(p.category), "Lyon"}
}

// genPair writes two scrape outputs of about n rows each, as successive
// veille runs: the previous has places 0..n-1; the current drops one in 20
// (removed), adds one in 20 (new, interleaved) and changes one in 10
// (modified: rating, reviews, phone or name), the rest identical.
func genPair(tb testing.TB, prev, cur io.Writer, n int) {
	tb.Helper()
	bp, bc := bufio.NewWriter(prev), bufio.NewWriter(cur)
	wp, err := export.NewCSV(bp, scrapeHeader)
	if err != nil {
		tb.Fatal(err)
	}
	wc, err := export.NewCSV(bc, scrapeHeader)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		p := genPlace(i)
		if err := wp.Write(p.cells()); err != nil {
			tb.Fatal(err)
		}
		if i%20 == 10 {
			if err := wc.Write(genPlace(n + i).cells()); err != nil {
				tb.Fatal(err)
			}
		}
		if i%20 == 0 {
			continue
		}
		if i%10 == 1 {
			switch (i / 10) % 4 {
			case 0:
				p.rating = max(10, p.rating-3)
			case 1:
				p.reviews += 1 + i%7
			case 2:
				p.phone = "+33 4 00 00 00 00"
			case 3:
				p.name += " (nouvelle direction)"
			}
		}
		if err := wc.Write(p.cells()); err != nil {
			tb.Fatal(err)
		}
	}
	for _, w := range []*export.CSVWriter{wp, wc} {
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := bp.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := bc.Flush(); err != nil {
		tb.Fatal(err)
	}
}
