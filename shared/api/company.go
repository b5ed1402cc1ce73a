package api

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/registers"
)

var (
	sirenRe = regexp.MustCompile(`^\d{9}$`)
	siretRe = regexp.MustCompile(`^\d{14}$`)
	vatRe   = regexp.MustCompile(`^FR[0-9A-Z]{2}\d{9}$`)
)

// companyRoutes are the company lookup (key scope /api/company/): by
// SIREN, SIRET or VAT number in the path, or by name with a postcode or
// commune (docs/registers.md).
func (s *Server) companyRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/api/company/search", Auth: Any, Tag: "company", Handle: s.searchCompany,
			Summary: "The company of a name in a postcode or commune (query name, and postcode or commune; address " +
				"helps between homonyms): the registers' best match, with how it matched",
			Query: []Param{
				{Name: "name", Type: "string", Doc: "the company's name, 1 to 200 characters (required)"},
				{Name: "postcode", Type: "string", Doc: "its postcode (this or commune is required)"},
				{Name: "commune", Type: "string", Doc: "its commune (this or postcode is required)"},
				{Name: "address", Type: "string", Doc: "its street address, to choose between namesakes"},
			},
			Response: registers.Company{}, Status: http.StatusOK, Errors: []int{401, 403, 404, 422, 503}},
		{Method: http.MethodGet, Path: "/api/company/{id}", Auth: Any, Tag: "company", Handle: s.getCompany,
			Summary: "A company by SIREN (9 digits), SIRET (14 digits, the establishment's) or French VAT number " +
				"(FR + key + SIREN): the registers' data and the last 12 months of BODACC",
			Response: registers.Company{}, Status: http.StatusOK, Errors: []int{401, 403, 404, 422, 503}},
	}
}

// searchCompany is GET /api/company/search.
func (s *Server) searchCompany(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	q := r.URL.Query()
	name := strings.TrimSpace(q.Get("name"))
	if name == "" || len(name) > 200 {
		return apperr.Fields(apperr.Field("name", "name : 1 à 200 caractères.", "name: 1 to 200 characters."))
	}
	query := registers.Query{Name: name, Postcode: strings.TrimSpace(q.Get("postcode")),
		Commune: strings.TrimSpace(q.Get("commune")), Address: strings.TrimSpace(q.Get("address"))}
	if query.Postcode == "" && query.Commune == "" {
		return apperr.Fields(apperr.Field("postcode", "Donnez postcode ou commune avec le nom.",
			"Give a postcode or a commune with the name."))
	}
	return s.lookupCompany(w, r.Context(), query)
}

// getCompany is GET /api/company/{id}: the id's shape says which number it
// is (spaces ignored, letters upper-cased).
func (s *Server) getCompany(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	id := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(r.PathValue("id")), " ", ""))
	var q registers.Query
	switch {
	case sirenRe.MatchString(id) && registers.ValidSIREN(id):
		q.SIREN = id
	case siretRe.MatchString(id) && registers.ValidSIRET(id):
		q.SIRET = id
	case vatRe.MatchString(id):
		if _, ok := registers.SIRENFromVAT(id); !ok {
			return apperr.Fields(apperr.Field("id", "Numéro de TVA invalide (clé).", "Invalid VAT number (key)."))
		}
		q.VAT = id
	default:
		return apperr.Fields(apperr.Field("id",
			"id : un SIREN (9 chiffres), un SIRET (14 chiffres) ou un numéro de TVA FR valides.",
			"id: a valid SIREN (9 digits), SIRET (14 digits) or French VAT number."))
	}
	return s.lookupCompany(w, r.Context(), q)
}

// lookupCompany asks the registers and maps their refusals: ambiguous and
// unknown are 404s, a register that does not answer a 503.
func (s *Server) lookupCompany(w http.ResponseWriter, ctx context.Context, q registers.Query) error {
	if s.d.Companies == nil {
		return apperr.New(apperr.Unavailable, "La recherche d'entreprises n'est pas configurée ici.",
			"Company lookup is not configured here.")
	}
	co, err := s.d.Companies.Lookup(ctx, q)
	switch {
	case errors.Is(err, registers.ErrAmbiguous):
		return apperr.New(apperr.NotFound, "Plusieurs entreprises de ce nom à cet endroit : précisez address.",
			"Several companies of that name in that place: give the address.")
	case errors.Is(err, registers.ErrNotFound):
		return apperr.New(apperr.NotFound, "Aucune entreprise ne correspond.", "No company matches.")
	case errors.Is(err, registers.ErrBadQuery):
		return apperr.Fields(apperr.Field("id", "Recherche impossible : "+err.Error(), "Cannot search: "+err.Error()))
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return apperr.New(apperr.Unavailable, "Les registres ne répondent pas : réessayez plus tard.",
			"The registers do not answer: try again later.").Wrap(err)
	}
	writeJSON(w, http.StatusOK, co)
	return nil
}
