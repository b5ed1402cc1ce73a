package api

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
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

// rawJSON is json.RawMessage's type: a field of it takes any JSON value.
var rawJSON = reflect.TypeFor[json.RawMessage]()

// jsonType names the type a body field takes as the API's document does
// (JSON Schema's words), not as Go does: a caller reads "array", never
// "[]json.RawMessage".
func jsonType(t reflect.Type) string {
	if t == rawJSON {
		return "JSON value"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Pointer:
		return jsonType(t.Elem())
	}
	return "value"
}

// jsonField is a type error's field path as the caller wrote it:
// encoding/json names a field of an embedded struct through the struct's
// Go name ("Request.queries"), which no body holds; those segments go.
func jsonField(t reflect.Type, path string) string {
	if path == "" {
		return ""
	}
	var out []string
	for _, seg := range strings.Split(path, ".") {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t != nil && t.Kind() == reflect.Struct {
			if f, ok := t.FieldByName(seg); ok && f.Anonymous && f.Tag.Get("json") == "" {
				t = f.Type // an embedded struct: its fields are the body's own
				continue
			}
			t = jsonFieldType(t, seg)
		} else if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		out = append(out, seg)
	}
	return strings.Join(out, ".")
}

// jsonFieldType is the type of t's field that a body names name (its json
// tag's name, or its Go name), nil when t has none.
func jsonFieldType(t reflect.Type, name string) reflect.Type {
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || (tag == "" && strings.EqualFold(f.Name, name)) {
			return f.Type
		}
	}
	return nil
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
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return &apperr.Error{Code: apperr.TooLarge,
			FR: "Corps de requête trop volumineux (" + strconv.FormatInt(tooBig.Limit, 10) + " octets au plus)",
			EN: "Request body too large (at most " + strconv.FormatInt(tooBig.Limit, 10) + " bytes)"}
	case errors.As(err, &typeErr):
		field := jsonField(reflect.TypeOf(dst), typeErr.Field)
		if field == "" {
			return apperr.New(apperr.Invalid, "Le corps doit être un objet JSON", "The body must be a JSON object")
		}
		return apperr.WrongType(field, jsonType(typeErr.Type))
	case errors.Is(err, io.EOF):
		return apperr.New(apperr.Invalid, "Corps JSON manquant", "Missing JSON body")
	}
	return apperr.New(apperr.Invalid, "JSON invalide", "Invalid JSON")
}
