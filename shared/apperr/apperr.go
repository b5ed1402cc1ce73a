// Package apperr holds the service's one error type. Every layer returns it
// (or wraps it); the HTTP layer maps its Code to a status and its message to
// the caller's language in one place (api.WriteError).
package apperr

import (
	"errors"
	"fmt"
)

// Code classifies an error; each maps to one HTTP status.
type Code string

// Application codes and the statuses of the spec's Errors table.
const (
	Invalid          Code = "invalid"            // 400
	Unauthorized     Code = "unauthorized"       // 401
	Forbidden        Code = "forbidden"          // 403
	NotFound         Code = "not_found"          // 404
	MethodNotAllowed Code = "method_not_allowed" // 405
	Gone             Code = "gone"               // 410
	TooLarge         Code = "too_large"          // 413
	Unprocessable    Code = "unprocessable"      // 422
	TooMany          Code = "too_many"           // 429
	Internal         Code = "internal"           // 500
	Unavailable      Code = "unavailable"        // 503
)

// Error is an application error carrying its message in French (the web
// app's language) and English (API-key callers).
type Error struct {
	Code       Code
	FR, EN     string
	Fields     []FieldError // validation failures tied to input fields
	RetryAfter int          // seconds, for TooMany
	Err        error        // cause, logged, never shown
}

// FieldError is one invalid input field.
type FieldError struct {
	Field  string
	FR, EN string
}

func (e *Error) Error() string {
	msg := e.EN
	if msg == "" {
		msg = e.FR
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error with a message in both languages.
func New(code Code, fr, en string) *Error { return &Error{Code: code, FR: fr, EN: en} }

// Fields returns a 422 error naming each invalid field.
func Fields(fields ...FieldError) *Error {
	return &Error{
		Code:   Unprocessable,
		FR:     "Données invalides",
		EN:     "Invalid input",
		Fields: fields,
	}
}

// WrongType is the 422 of a body field holding a value of another JSON
// type; expected is the JSON Schema name of the type the field takes
// ("string", "integer", "array"…), the words of the API's document.
func WrongType(field, expected string) *Error {
	return Fields(Field(field, "Type invalide (attendu : "+expected+")", "Invalid type (expected "+expected+")"))
}

// Field builds one FieldError.
func Field(field, fr, en string) FieldError { return FieldError{Field: field, FR: fr, EN: en} }

// TooManyRequests is the 429 of every rate limit: the French message states the
// delay in seconds, as the spec's Limits require.
func TooManyRequests(retryAfter int) *Error {
	if retryAfter < 1 {
		retryAfter = 1
	}
	return &Error{
		Code:       TooMany,
		FR:         fmt.Sprintf("Trop de tentatives. Réessaie dans %d secondes.", retryAfter),
		EN:         fmt.Sprintf("Too many requests. Retry in %d seconds.", retryAfter),
		RetryAfter: retryAfter,
	}
}

// Wrap attaches a cause to an application error.
func (e *Error) Wrap(err error) *Error {
	c := *e
	c.Err = err
	return &c
}

// CodeOf returns the code of err, Internal when err is not an *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Is reports whether err carries the code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }

// Unauthenticated is the 401 of a request with no valid credentials.
func Unauthenticated() *Error { return New(Unauthorized, "Non authentifié", "Not authenticated") }

// Missing is the 404 of an absent object, or one of another account.
func Missing() *Error { return New(NotFound, "Introuvable", "Not found") }
