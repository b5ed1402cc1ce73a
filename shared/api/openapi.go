package api

import (
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// OpenAPI returns the OpenAPI 3.1 document of the key-accessible surface,
// derived from the route table the server mounts, so it cannot drift from
// what is served.
func (s *Server) OpenAPI() map[string]any {
	paths := map[string]any{}
	for _, rt := range s.routes {
		if !KeyReachable(rt) {
			continue
		}
		item, _ := paths[rt.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.Path] = item
		}
		item[strings.ToLower(rt.Method)] = operation(rt)
	}
	errSchema := schemaOf(reflect.TypeOf(ErrorBody{}))
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Prospecting Data Service API",
			"version":     "0.1.0-alpha",
			"description": "The surface an API key can reach. Send the key as `Authorization: Bearer <key>` or `X-API-Key: <key>`.",
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

func operation(rt Route) map[string]any {
	op := map[string]any{
		"operationId": operationID(rt),
		"summary":     rt.Summary,
		"tags":        []any{rt.Tag},
	}
	var params []any
	for _, m := range wildcard.FindAllStringSubmatch(rt.Path, -1) {
		params = append(params, map[string]any{
			"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"},
		})
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if rt.Request != nil {
		op["requestBody"] = map[string]any{
			"required": true,
			"content":  map[string]any{"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(rt.Request))}},
		}
	}
	success := map[string]any{"description": http.StatusText(rt.Status)}
	switch {
	case rt.ResponseType != "":
		success["content"] = map[string]any{rt.ResponseType: map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}}
	case rt.Response != nil:
		success["content"] = map[string]any{"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(rt.Response))}}
	}
	responses := map[string]any{strconv.Itoa(rt.Status): success}
	errs := rt.Errors
	if rt.Auth != Public {
		errs = slices.Concat(errs, []int{http.StatusUnauthorized, http.StatusForbidden})
	}
	for _, code := range errs {
		responses[strconv.Itoa(code)] = map[string]any{
			"description": http.StatusText(code),
			"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}},
		}
	}
	op["responses"] = responses
	if rt.Auth == Public {
		op["security"] = []any{map[string]any{}}
	}
	return op
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
// dialect) from its json tags: pointers and interfaces are nullable.
func schemaOf(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		inner := schemaOf(t.Elem())
		if typ, ok := inner["type"].(string); ok {
			inner["type"] = []any{typ, "null"}
		}
		return inner
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem())}
	case reflect.Struct:
		props := map[string]any{}
		var required []any
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			props[name] = schemaOf(f.Type)
			if !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer {
				required = append(required, name)
			}
		}
		out := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			out["required"] = required
		}
		return out
	}
	return map[string]any{}
}
