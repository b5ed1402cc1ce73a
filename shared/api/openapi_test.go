package api_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app/apptest"
)

// document is the served document of a server with every route, as JSON.
func document(t *testing.T) []byte {
	t.Helper()
	s := api.New(api.Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: "http://127.0.0.1:8080"})
	b, err := json.Marshal(s.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The document loads in kin-openapi, the validator every API test checks
// its exchanges with; loading validates it, and every example (captured
// from a real answer, testdata/examples) against its schema: an example
// that no longer matches fails here.
func TestOpenAPILoadsWithItsExamples(t *testing.T) {
	if _, err := apptest.LoadDoc(document(t)); err != nil {
		t.Fatal(err)
	}
}

// A captured example that contradicts its schema is caught (the check
// above cannot pass vacuously).
func TestOpenAPIBadExampleFails(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(document(t), &doc); err != nil {
		t.Fatal(err)
	}
	op := doc["paths"].(map[string]any)["/api/jobs/{id}"].(map[string]any)["get"].(map[string]any)
	ok := op["responses"].(map[string]any)["200"].(map[string]any)
	ok["content"].(map[string]any)["application/json"].(map[string]any)["example"] = map[string]any{"id": 12}
	b, _ := json.Marshal(doc)
	_, err := apptest.LoadDoc(b)
	if err == nil || !strings.Contains(err.Error(), "example") {
		t.Fatalf("a job example without its required fields: %v", err)
	}
}

// Every operation says what it answers, so a new route cannot slip into
// the document undescribed: a success with a body schema (or a file's media
// types, or no body for 204; the error shape for a route whose only answer
// is an error), the error shape for 401 and 500 everywhere,
// 404 where a path has an id, 400/413/422 where a body is read, and each
// error answer with the Error schema.
func TestOpenAPIEveryOperationDescribed(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			RequestBody *struct {
				Content map[string]struct{ Schema any }
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(document(t), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths {
		for method, op := range item {
			n++
			name := strings.ToUpper(method) + " " + path
			if op.OperationID == "" {
				t.Errorf("%s: no operationId", name)
			}
			for code, r := range op.Responses {
				c, err := strconv.Atoi(code)
				if err != nil || c < 200 || c > 599 {
					t.Errorf("%s: response %q is not a status", name, code)
					continue
				}
				switch {
				case c >= 400:
					if r.Content["application/json"].Schema["$ref"] != "#/components/schemas/Error" {
						t.Errorf("%s %d: not the Error schema", name, c)
					}
				case c >= 200 && c < 300:
					if c == http.StatusNoContent {
						if len(r.Content) > 0 {
							t.Errorf("%s 204 with a body", name)
						}
						continue
					}
					if len(r.Content) == 0 {
						t.Errorf("%s %d: no response content", name, c)
					}
					if j, ok := r.Content["application/json"]; ok && j.Schema == nil {
						t.Errorf("%s %d: JSON without a schema", name, c)
					}
				}
			}
			want := []string{"401", "500"}
			if strings.Contains(path, "{") {
				want = append(want, "404")
			}
			if op.RequestBody != nil {
				want = append(want, "400", "413", "422")
				if op.RequestBody.Content["application/json"].Schema == nil {
					t.Errorf("%s: request body without a schema", name)
				}
			}
			for _, code := range want {
				if _, ok := op.Responses[code]; !ok {
					t.Errorf("%s: no %s response", name, code)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d operations", n)
	}
}
