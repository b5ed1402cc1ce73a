package scrape

import (
	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// Locate names the department and the region of country (alpha-3) that
// hold pt (lon, lat), as the scrape engine writes them in the departement
// and region columns: "" where there is none (at sea, abroad, a country
// without departments).
func (s *Service) Locate(country string, pt orb.Point) (department, region string, err error) {
	gz, err := s.geo()
	if err != nil {
		return "", "", err
	}
	d, r := gz.g.Locate(country, pt)
	if d != gazetteer.None {
		department = gz.g.Place(d).Name
	}
	if r != gazetteer.None {
		region = gz.g.Place(r).Name
	}
	return department, region, nil
}
