package api

import (
	"encoding"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// OpenAPI returns the OpenAPI 3.1 document of the key-accessible surface,
// derived from the route table the server mounts, so it cannot drift from
// what is served. Every API test checks its exchanges against it
// (shared/app/apptest, docs/openapi.md).
func (s *Server) OpenAPI() map[string]any {
	paths := map[string]any{}
	examples := loadExamples()
	for _, rt := range s.routes {
		if !KeyReachable(rt) {
			continue
		}
		item, _ := paths[rt.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.Path] = item
		}
		item[strings.ToLower(rt.Method)] = operation(rt, examples)
	}
	errSchema := schemaOf(reflect.TypeFor[ErrorBody](), false)
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Prospecting Data Service API",
			"version":     "0.1.0-alpha",
			"description": "The surface an API key can reach. Send the key as `Authorization: Bearer <key>` or `X-API-Key: <key>`.\n\n" + placeDataCredit,
		},
		"servers": []any{map[string]any{"url": s.d.BaseURL}},
		"security": []any{
			map[string]any{"bearerKey": []any{}},
			map[string]any{"headerKey": []any{}},
		},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearerKey": map[string]any{"type": "http", "scheme": "bearer", "description": "sk_ followed by 40 hexadecimal characters"},
				"headerKey": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key"},
			},
			"schemas": map[string]any{"Error": errSchema},
		},
	}
}

// KeyReachable reports whether an API key can call the route.
func KeyReachable(rt Route) bool {
	return rt.Auth != SessionOnly && rt.Auth != Admin && KeyAllowed(rt.Method, rt.Path)
}

var wildcard = regexp.MustCompile(`\{([a-zA-Z0-9_]+)\.*\}`)

// errorStatuses returns every error status the route can answer, in order: the
// ones it declares and the ones the middleware adds whatever the route
// (see ServeHTTP, wrap and decode).
func (rt Route) errorStatuses() []int {
	errs := slices.Clone(rt.Errors)
	// A presented key that is unknown, revoked or of a deactivated account
	// is a 401 on every route, Public ones included.
	errs = append(errs, http.StatusUnauthorized)
	// A browser's request from another site that would change something
	// is a 403 on every route (ServeHTTP, crossOrigin), Public ones
	// included (a login or signup forged by another site).
	if rt.Auth != Public || !safeMethod(rt.Method) {
		errs = append(errs, http.StatusForbidden)
	}
	if rt.Request != nil {
		// decode: malformed JSON 400, a value of the wrong type 422, an
		// oversize body 413.
		errs = append(errs, http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge)
	}
	// A fault of the service (a table or store that fails) is a 500 with a
	// {detail} that reveals nothing.
	errs = append(errs, http.StatusInternalServerError)
	slices.Sort(errs)
	return slices.Compact(errs)
}

func operation(rt Route, examples map[string]json.RawMessage) map[string]any {
	id := operationID(rt)
	op := map[string]any{
		"operationId": id,
		"summary":     rt.Summary,
		"tags":        []any{rt.Tag},
	}
	var params []any
	for _, m := range wildcard.FindAllStringSubmatch(rt.Path, -1) {
		params = append(params, map[string]any{
			"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"},
		})
	}
	for _, q := range rt.Query {
		params = append(params, queryParam(q))
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if rt.Request != nil {
		content := map[string]any{"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(rt.Request), true)}}
		if rt.Upload != "" {
			content["multipart/form-data"] = map[string]any{"schema": map[string]any{
				"type":       "object",
				"properties": map[string]any{rt.Upload: map[string]any{"type": "string", "description": "the file's bytes"}},
				"required":   []any{rt.Upload},
			}}
		}
		op["requestBody"] = map[string]any{"required": true, "content": content}
	}
	success := map[string]any{"description": http.StatusText(rt.Status)}
	if rt.Status >= 400 {
		// A route whose only answer is an error (a frozen route, an
		// immutable pipeline's 405) answers the error shape.
		success["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}
	} else if content := successContent(rt); len(content) > 0 {
		if ex, ok := examples[id+"."+strconv.Itoa(rt.Status)]; ok {
			if mt, ok := content["application/json"].(map[string]any); ok {
				mt["example"] = ex
			}
		}
		success["content"] = content
	}
	responses := map[string]any{strconv.Itoa(rt.Status): success}
	if rt.Redirect {
		responses[strconv.Itoa(http.StatusFound)] = map[string]any{
			"description": "The file, at a short-lived signed address of the file store",
			"headers": map[string]any{"Location": map[string]any{
				"required": true, "schema": map[string]any{"type": "string", "format": "uri"},
			}},
		}
	}
	for _, code := range rt.errorStatuses() {
		if code == rt.Status {
			continue // a route whose answer is an error (405 of an immutable pipeline)
		}
		r := map[string]any{
			"description": http.StatusText(code),
			"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}},
			// writeError sets Retry-After on any error that says when to
			// come back: a 429, a file not made yet (400).
			"headers": map[string]any{"Retry-After": map[string]any{
				"description": "Seconds to wait before trying again",
				"schema":      map[string]any{"type": "integer", "minimum": 0},
			}},
		}
		if ex, ok := examples[id+"."+strconv.Itoa(code)]; ok {
			r["content"].(map[string]any)["application/json"].(map[string]any)["example"] = ex
		}
		responses[strconv.Itoa(code)] = r
	}
	op["responses"] = responses
	if rt.Auth == Public {
		op["security"] = []any{map[string]any{}}
	}
	return op
}

// successContent describes the success body by media type: a JSON one has
// the Response's schema, a file (CSV, XLSX, an image) has none, OpenAPI
// 3.1's way to say raw bytes: the service's CSV is semicolon-separated
// (export), which a generic CSV decoder would misread.
func successContent(rt Route) map[string]any {
	media := rt.Media
	switch {
	case len(media) > 0:
	case rt.ResponseType != "":
		media = []string{rt.ResponseType}
	case rt.Response != nil:
		media = []string{"application/json"}
	}
	content := map[string]any{}
	for _, m := range media {
		switch {
		case m == "application/json":
			var schema map[string]any
			if rt.Response != nil {
				schema = schemaOf(reflect.TypeOf(rt.Response), false)
			} else {
				schema = map[string]any{}
			}
			content[m] = map[string]any{"schema": schema}
		default:
			content[m] = map[string]any{}
		}
	}
	return content
}

func operationID(rt Route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.Method))
	for _, part := range strings.FieldsFunc(rt.Path, func(r rune) bool { return r == '/' || r == '-' || r == '.' || r == '{' || r == '}' || r == '_' }) {
		if part == "api" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// schemaOf describes a Go type as a JSON Schema (2020-12, OpenAPI 3.1's
// dialect) the way encoding/json writes it: json tag names, `json:"-"`
// skipped, embedded structs flattened, nil pointers, slices and maps as
// null. In a response every property encoding/json always writes is
// required (omitempty ones are not). In a request nothing is required by
// the schema: a field left out is its zero value, and the service's own
// checks answer what is missing with a 400 or 422 naming the field.
func schemaOf(t reflect.Type, request bool) map[string]any {
	return schemaWalk(t, request, map[reflect.Type]bool{})
}

func schemaWalk(t reflect.Type, request bool, open map[reflect.Type]bool) map[string]any {
	switch t {
	case reflect.TypeFor[time.Time]():
		return map[string]any{"type": "string", "format": "date-time"}
	case reflect.TypeFor[json.RawMessage]():
		return map[string]any{} // any JSON value
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if t.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) {
			return map[string]any{} // a shape of its own making
		}
		if t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
			return map[string]any{"type": "string"}
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(schemaWalk(t.Elem(), request, open))
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nullable(map[string]any{"type": "string", "contentEncoding": "base64"})
		}
		return nullable(map[string]any{"type": "array", "items": schemaWalk(t.Elem(), request, open)})
	case reflect.Array:
		return map[string]any{"type": "array", "items": schemaWalk(t.Elem(), request, open)}
	case reflect.Map:
		return nullable(map[string]any{"type": "object", "additionalProperties": schemaWalk(t.Elem(), request, open)})
	case reflect.Struct:
		if open[t] {
			return map[string]any{} // a type within itself: described where it starts
		}
		open[t] = true
		defer delete(open, t)
		props := map[string]any{}
		var required []any
		structFields(t, request, open, props, &required)
		out := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			out["required"] = required
		}
		return out
	}
	return map[string]any{}
}

// structFields adds t's JSON properties: a field named at a shallower depth
// wins over one an embedded struct brings (encoding/json's rule).
func structFields(t reflect.Type, request bool, open map[reflect.Type]bool, props map[string]any, required *[]any) {
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if tag == "-" { // `json:"-,"` names a property "-"
			continue
		}
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := props[name]; taken {
			continue
		}
		schema := schemaWalk(ft, request, open)
		if slices.Contains(strings.Split(opts, ","), "string") {
			schema = map[string]any{"type": "string"}
		}
		props[name] = schema
		omit := slices.Contains(strings.Split(opts, ","), "omitempty") || slices.Contains(strings.Split(opts, ","), "omitzero")
		if !request && !omit {
			*required = append(*required, name)
		}
	}
	for _, et := range embedded {
		structFields(et, request, open, props, required)
	}
}

// nullable lets a schema also be null (a nil pointer, slice or map).
func nullable(s map[string]any) map[string]any {
	switch typ := s["type"].(type) {
	case string:
		s["type"] = []any{typ, "null"}
	case nil:
		// {} already accepts null
	}
	return s
}

// queryParam is the document's parameter object of a route's query
// parameter: optional (every one has a default or is one of a choice the
// route names), with its domain.
func queryParam(q Param) map[string]any {
	schema := map[string]any{"type": q.Type}
	if len(q.Enum) > 0 {
		enum := make([]any, len(q.Enum))
		for i, v := range q.Enum {
			enum[i] = v
		}
		schema["enum"] = enum
	}
	if q.Min != nil {
		schema["minimum"] = *q.Min
	}
	if q.Max != nil {
		schema["maximum"] = *q.Max
	}
	if q.Default != nil {
		schema["default"] = q.Default
	}
	return map[string]any{"name": q.Name, "in": "query", "required": false, "description": q.Doc, "schema": schema}
}

// placeDataCredit is the attribution the zones' open data asks of whoever
// ships data derived from it (GeoNames' CC BY 4.0, the Licence Ouverte of
// INSEE's and IGN's data; docs/gazetteer.md): the zones, their shapes and
// the estimate's tiles are that data.
const placeDataCredit = "Zones: place data © GeoNames (geonames.org), CC BY 4.0 · INSEE, Code officiel géographique 2026, " +
	"and La Poste postal codes, via Etalab (Licence Ouverte 2.0) · commune outlines IGN – Admin Express COG 2018 " +
	"(Licence Ouverte) · made with Natural Earth."
