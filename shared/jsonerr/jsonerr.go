// Package jsonerr says what encoding/json could not read in the words of the
// API's document: a field by its path in the body, a type by its JSON Schema
// name. Every reader of a request body explains its decoding errors through
// it, so that no Go type or struct name ("[]json.RawMessage",
// "Request.queries") reaches a caller.
package jsonerr

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// rawJSON is json.RawMessage's type: a field of it takes any JSON value.
var rawJSON = reflect.TypeFor[json.RawMessage]()

// Type names the type a field takes as the API's document does.
func Type(t reflect.Type) string {
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
		return Type(t.Elem())
	}
	return "value"
}

// Field is a type error's field path (UnmarshalTypeError.Field, decoded
// into a value of type t) as the caller wrote it: encoding/json names a
// field of an embedded struct through the struct's Go name
// ("Request.queries"), which no body holds; those segments go.
func Field(t reflect.Type, path string) string {
	if path == "" {
		return ""
	}
	var out []string
	for _, seg := range strings.Split(path, ".") {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == nil:
		case t.Kind() == reflect.Struct:
			if f, ok := t.FieldByName(seg); ok && f.Anonymous && f.Tag.Get("json") == "" {
				t = f.Type // an embedded struct: its fields are the body's own
				continue
			}
			t = fieldType(t, seg)
		case t.Kind() == reflect.Slice, t.Kind() == reflect.Array, t.Kind() == reflect.Map:
			t = t.Elem()
		}
		out = append(out, seg)
	}
	return strings.Join(out, ".")
}

// fieldType is the type of t's field that a body names name (its json
// tag's name, or its Go name), nil when t has none.
func fieldType(t reflect.Type, name string) reflect.Type {
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

// WrongType reports whether err is a value of the wrong type, decoded into
// dst: the field's path ("" for the whole value) and the JSON type it
// takes.
func WrongType(err error, dst any) (field, expected string, ok bool) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "", "", false
	}
	return Field(reflect.TypeOf(dst), te.Field), Type(te.Type), true
}

// Message is why a value did not decode into dst, for a caller:
// "nodes: expected array" for a value of the wrong type, "invalid JSON at
// byte 12" for malformed JSON, else the decoder's own words without its
// "json: " prefix (an unknown field, a type's own UnmarshalJSON refusal).
func Message(err error, dst any) string {
	if field, want, ok := WrongType(err, dst); ok {
		if field == "" {
			return "expected " + want
		}
		return field + ": expected " + want
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "invalid JSON at byte " + strconv.FormatInt(se.Offset, 10)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
