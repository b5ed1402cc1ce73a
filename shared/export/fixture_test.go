package export

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// businessHeader is a scrape output's columns (the registry's scrap columns
// plus extra columns and enrichments): 16 columns.
var businessHeader = []string{
	"nom", "site_web", "telephone", "adresse", "code_postal", "ville", "rating", "reviews_count",
	"category", "lien_maps", "latitude", "longitude", "email", "departement", "region", "aggregator_flag",
}

// businessRow returns the i-th row of a deterministic, realistic business
// list: accents, phone numbers in international form (neutralised on
// write), missing websites, a quote or a ';' now and then.
func businessRow(rng *rand.Rand, i int) []string {
	names := []string{"Boulangerie", "Café", "Garage", "Pharmacie", "Coiffure", "Plomberie", "Librairie", "Restaurant"}
	owners := []string{"Dupont", "Lefèvre", "Müller", "O'Brien", "Nguyễn", "García", "Martin", "Bernard"}
	cities := [][3]string{
		{"69002", "Lyon", "Rhône;Auvergne-Rhône-Alpes"},
		{"75011", "Paris", "Paris;Île-de-France"},
		{"13001", "Marseille", "Bouches-du-Rhône;Provence-Alpes-Côte d'Azur"},
		{"31000", "Toulouse", "Haute-Garonne;Occitanie"},
	}
	kind, owner, city := names[i%len(names)], owners[rng.IntN(len(owners))], cities[rng.IntN(len(cities))]
	name := fmt.Sprintf("%s %s", kind, owner)
	if i%97 == 0 {
		name = fmt.Sprintf(`%s "Chez %s"`, kind, owner)
	}
	site := ""
	if rng.IntN(4) > 0 {
		site = fmt.Sprintf("https://www.%s-%d.fr/", "entreprise", i)
	}
	email := ""
	if site != "" && rng.IntN(2) == 0 {
		email = fmt.Sprintf("contact@entreprise-%d.fr", i)
	}
	dept, region, _ := strings.Cut(city[2], ";")
	return []string{
		name, site,
		fmt.Sprintf("+33 %d %02d %02d %02d %02d", 1+rng.IntN(5), rng.IntN(100), rng.IntN(100), rng.IntN(100), rng.IntN(100)),
		fmt.Sprintf("%d rue de la République, %s %s", 1+rng.IntN(200), city[0], city[1]),
		city[0], city[1],
		fmt.Sprintf("%.1f", 1+rng.Float64()*4), fmt.Sprint(rng.IntN(2000)),
		kind, fmt.Sprintf("https://www.google.com/maps/place/?q=place_id:ChIJ%016x", rng.Uint64()),
		fmt.Sprintf("%.6f", 43+rng.Float64()*6), fmt.Sprintf("%.6f", -1+rng.Float64()*7),
		email, dept, region, fmt.Sprint(i%50 == 0),
	}
}

// businessRows returns n rows in memory (for tests and small benchmarks).
func businessRows(n int) [][]string {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([][]string, n)
	for i := range rows {
		rows[i] = businessRow(rng, i)
	}
	return rows
}

// writeCSV returns the stored CSV of header and rows.
func writeCSV(t testing.TB, header []string, rows [][]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewCSV(&buf, header)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeFixtureFile writes a stored CSV of n business rows to a file in dir,
// row by row, so that even a million rows are never in memory.
func writeFixtureFile(t testing.TB, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("business-%d.csv", n))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewCSV(f, businessHeader)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		if err := w.Write(businessRow(rng, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// countingWriter counts what goes through it to io.Discard.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
