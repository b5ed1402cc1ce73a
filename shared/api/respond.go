package api

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jsonerr"
)

// status maps an application code to its HTTP status: the one place where
// that mapping lives.
func status(c apperr.Code) int {
	switch c {
	case apperr.Invalid:
		return http.StatusBadRequest
	case apperr.Unauthorized:
		return http.StatusUnauthorized
	case apperr.Forbidden:
		return http.StatusForbidden
	case apperr.NotFound:
		return http.StatusNotFound
	case apperr.MethodNotAllowed:
		return http.StatusMethodNotAllowed
	case apperr.Gone:
		return http.StatusGone
	case apperr.TooLarge:
		return http.StatusRequestEntityTooLarge
	case apperr.Unprocessable:
		return http.StatusUnprocessableEntity
	case apperr.TooMany:
		return http.StatusTooManyRequests
	case apperr.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// ErrorBody is the spec's error shape: {detail} or, for field validation,
// {detail, errors: [{field, message}]}.
type ErrorBody struct {
	Detail string       `json:"detail"`
	Errors []FieldError `json:"errors,omitempty"`
}

// FieldError is one entry of ErrorBody.Errors.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// writeError answers err in the caller's language. An error that is not an
// application error is a server fault: logged with its cause, answered with a
// generic 500 that reveals nothing.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	en := english(r)
	var e *apperr.Error
	if !errors.As(err, &e) {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		e = apperr.New(apperr.Internal, "Erreur interne du serveur", "Internal server error")
	}
	body := ErrorBody{Detail: e.FR}
	if en {
		body.Detail = e.EN
	}
	for _, f := range e.Fields {
		m := f.FR
		if en {
			m = f.EN
		}
		body.Errors = append(body.Errors, FieldError{Field: f.Field, Message: m})
	}
	if len(e.Fields) == 1 {
		body.Detail = body.Errors[0].Field + " : " + body.Errors[0].Message
		if en {
			body.Detail = body.Errors[0].Field + ": " + body.Errors[0].Message
		}
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	writeJSON(w, status(e.Code), body)
}

// writeJSON answers v as JSON with the status.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b = []byte(`{"detail":"Internal server error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(code)
	b = append(b, '\n')
	w.Write(b)
}

// decode reads a JSON body into dst. Malformed JSON is a 400, a value of the
// wrong type a 422 naming the field, an oversize body a 413; never a 500.
func decode(r *http.Request, dst any) error {
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(dst)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			return apperr.New(apperr.Invalid, "JSON invalide : contenu après l'objet", "Invalid JSON: data after the object")
		}
		return nil
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &apperr.Error{Code: apperr.TooLarge,
			FR: "Corps de requête trop volumineux (" + strconv.FormatInt(tooBig.Limit, 10) + " octets au plus)",
			EN: "Request body too large (at most " + strconv.FormatInt(tooBig.Limit, 10) + " bytes)"}
	}
	if field, want, ok := jsonerr.WrongType(err, dst); ok {
		if field == "" {
			return apperr.New(apperr.Invalid, "Le corps doit être un objet JSON", "The body must be a JSON object")
		}
		return apperr.WrongType(field, want)
	}
	if errors.Is(err, io.EOF) {
		return apperr.New(apperr.Invalid, "Corps JSON manquant", "Missing JSON body")
	}
	return apperr.New(apperr.Invalid, "JSON invalide", "Invalid JSON")
}
