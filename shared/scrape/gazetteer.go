package scrape

import (
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/zones"
)

// Gazetteer returns the loaded gazetteer (loading it on first use), for the
// adapters built over it, such as the simulated map world.
func (s *Service) Gazetteer() (*gazetteer.Gazetteer, error) {
	gz, err := s.geo()
	if err != nil {
		return nil, err
	}
	return gz.g, nil
}

// Resolve reads a zone of a country with the scrape's resolver (the same
// rules and messages as a scrape's zones).
func (s *Service) Resolve(country, zone string) (zones.Zone, error) {
	gz, err := s.geo()
	if err != nil {
		return zones.Zone{}, err
	}
	return gz.r.Resolve(country, zone)
}
