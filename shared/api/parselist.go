package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/export"
)

// ParseListRequest is the JSON form of POST /api/jobs/parse-list.
type ParseListRequest struct {
	Text string `json:"text"`
}

// ParseListBody is its answer: items are meant to be sent unchanged to the
// typed job endpoints.
type ParseListBody struct {
	Count  int                 `json:"count"`
	Sample []map[string]string `json:"sample"`
	Items  []map[string]string `json:"items"`
}

// parseListMaxBody is the route's body cap: the CSV's own cap, plus room
// for the JSON quoting or the multipart framing around it.
const parseListMaxBody = export.MaxParseListBytes*2 + 64<<10

// parseListRoute turns a pasted or uploaded CSV list into items.
func (s *Server) parseListRoute() Route {
	return Route{Method: http.MethodPost, Path: "/api/jobs/parse-list", Auth: Any, Tag: "jobs", MaxBody: parseListMaxBody, Handle: parseList,
		Summary: "Parse a pasted or uploaded CSV list (header row; ',' ';' or tab; BOM detected) into items for the typed jobs",
		Request: ParseListRequest{}, Upload: "file", Response: ParseListBody{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 413, 422}}
}

// parseList is POST /api/jobs/parse-list.
func parseList(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	src, err := parseListSource(r)
	if err != nil {
		return err
	}
	items, err := export.ParseList(src, 0, 0)
	if err != nil {
		return parseListError(err)
	}
	body := ParseListBody{Count: len(items), Items: items, Sample: items[:min(5, len(items))]}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// parseListSource is the CSV text of the request: the "file" field of a
// multipart upload, or the JSON body's text.
func parseListSource(r *http.Request) (io.Reader, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		f, _, err := r.FormFile("file")
		if err != nil {
			return nil, apperr.Fields(apperr.Field("file", "fichier CSV attendu dans le champ file", "expected a CSV file in the field file"))
		}
		return f, nil
	}
	var req ParseListRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return strings.NewReader(req.Text), nil
}

// parseListError maps the parser's refusals: an empty list, too many rows
// or too large a text are 422; a text that is not a CSV list is 400.
func parseListError(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, export.ErrEmpty), errors.Is(err, export.ErrTooManyItems), errors.Is(err, export.ErrTooLarge):
		return apperr.Fields(apperr.Field("text", "liste refusée : "+msg, "list refused: "+msg))
	case errors.Is(err, export.ErrNoHeader), errors.Is(err, export.ErrMalformed):
		return apperr.New(apperr.Invalid, "CSV illisible : "+msg, "Unreadable CSV: "+msg)
	}
	return err
}
