package scrape

import "github.com/prospectdata/svc/shared/gazetteer"

// Gazetteer returns the loaded gazetteer (loading it on first use), for the
// adapters built over it, such as the simulated map world.
func (s *Service) Gazetteer() (*gazetteer.Gazetteer, error) {
	gz, err := s.geo()
	if err != nil {
		return nil, err
	}
	return gz.g, nil
}
