package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/phoneinfo"
)

// PhonePlanBody is the answer of POST /api/admin/phone-plan.
type PhonePlanBody struct {
	Blocks int `json:"blocks"`
}

// phonePlanRoute seeds phone_info's numbering plan: ARCEP's MAJNUM.csv
// and identifiants_CE.csv as published (multipart fields blocks and
// operators), checked by reading them whole, then stored where every
// runtime's workers read them (docs/phone-info.md).
func (s *Server) phonePlanRoute() Route {
	return Route{Method: http.MethodPost, Path: "/api/admin/phone-plan", Auth: Admin, Tag: "admin", MaxBody: 2*phoneinfo.MaxPlanFile + 64<<10, Handle: s.seedPhonePlan,
		Summary: "Seed phone_info's numbering plan: multipart fields blocks (ARCEP's MAJNUM.csv) and operators " +
			"(identifiants_CE.csv)",
		Response: PhonePlanBody{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 413, 503}}
}

// seedPhonePlan is POST /api/admin/phone-plan: both files are parsed
// before either is stored, so a bad pair leaves the current plan.
func (s *Server) seedPhonePlan(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	if s.d.Files == nil {
		return apperr.New(apperr.Unavailable, "Pas de stockage de fichiers ici.", "No file store here.")
	}
	if err := r.ParseMultipartForm(8 << 20); err != nil {
		return apperr.New(apperr.Invalid, "Envoyez un formulaire multipart avec blocks et operators.",
			"Send a multipart form with blocks and operators.")
	}
	blocks, err := planFile(r, "blocks")
	if err != nil {
		return err
	}
	ops, err := planFile(r, "operators")
	if err != nil {
		return err
	}
	plan, err := phoneinfo.LoadARCEP(bytes.NewReader(blocks), bytes.NewReader(ops))
	if err != nil {
		return apperr.New(apperr.Invalid, "Fichiers ARCEP illisibles : "+err.Error(), "Unreadable ARCEP files: "+err.Error())
	}
	for key, b := range map[string][]byte{phoneinfo.BlocksKey: blocks, phoneinfo.OperatorsKey: ops} {
		if _, err := s.d.Files.Put(r.Context(), key, bytes.NewReader(b), "text/csv"); err != nil {
			return fmt.Errorf("store %s: %w", key, err)
		}
	}
	writeJSON(w, http.StatusOK, PhonePlanBody{Blocks: plan.Len()})
	return nil
}

// planFile reads the multipart file field whole, at most
// phoneinfo.MaxPlanFile bytes; missing, unreadable or larger is a 422
// naming the field.
func planFile(r *http.Request, field string) ([]byte, error) {
	f, _, err := r.FormFile(field)
	if err != nil {
		return nil, apperr.Fields(apperr.Field(field, "Fichier manquant.", "Missing file."))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, phoneinfo.MaxPlanFile+1))
	if err != nil || len(b) > phoneinfo.MaxPlanFile {
		return nil, apperr.Fields(apperr.Field(field, "Fichier illisible ou trop gros.", "File unreadable or too large."))
	}
	return b, nil
}
