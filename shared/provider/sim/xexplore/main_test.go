package explore

import (
	"fmt"
	"testing"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
)

func TestX(t *testing.T) {
	g, _ := data.Load()
	kinds := map[string]int{}
	var pop = map[string]int64{}
	for id := range gazetteer.ID(g.Len()) {
		p := g.Place(id)
		k := p.Country + "/" + p.Kind.String()
		kinds[k]++
		pop[k] += p.Population
		if p.Name == "Paris" || p.Name == "Lyon" || p.Code == "69381" || p.Code == "75101" || p.Name == "Berlin" || p.Name == "Villeurbanne" {
			fmt.Printf("%+v\n", *p)
		}
	}
	n := 0
	for k, v := range kinds {
		if k[:3] == "FRA" || k[:3] == "DEU" || v > 1000 {
			fmt.Println(k, v, pop[k])
		}
		n++
	}
	fmt.Println(len(kinds))
	// radius stats for FRA cities
	var noRadius, noPost int
	for id := range gazetteer.ID(g.Len()) {
		p := g.Place(id)
		if p.Kind >= gazetteer.City && p.Radius <= 0 { noRadius++ }
		if p.Country == "FRA" && p.Kind == gazetteer.City && len(p.Postcodes) == 0 { noPost++ }
	}
	fmt.Println("noRadius", noRadius, "noPost", noPost)
}
