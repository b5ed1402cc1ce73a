package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// TestParseList: POST /api/jobs/parse-list reads a pasted or uploaded CSV
// list into items, detecting the delimiter and a BOM.
func TestParseList(t *testing.T) {
	e := apptest.Start(t)
	c := e.NewClient()
	c.Signup("lists@example.org", fixturePassword)
	var body struct {
		Count  int                 `json:"count"`
		Sample []map[string]string `json:"sample"`
		Items  []map[string]string `json:"items"`
	}
	text := "\uFEFFnom;site_web\nBoulangerie A;https://a.example\n\"Chez B; et fils\";https://b.example\n"
	if err := json.Unmarshal(c.Do("POST", "/api/jobs/parse-list", map[string]any{"text": text}).Must(t, 200).Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Count != 2 || body.Items[1]["nom"] != "Chez B; et fils" || len(body.Sample) != 2 {
		t.Fatalf("parsed %+v", body)
	}

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "list.csv")
	var rows strings.Builder
	rows.WriteString("website\temail\n")
	for i := range 12 {
		fmt.Fprintf(&rows, "https://s%d.example\tcontact@s%d.example\n", i, i)
	}
	fw.Write([]byte(rows.String()))
	mw.Close()
	sent := bytes.Clone(buf.Bytes())
	req, _ := http.NewRequest("POST", e.Server.URL+"/api/jobs/parse-list", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
	got, _ := io.ReadAll(resp.Body)
	apptest.Validate(t, e.Doc(), req, sent, resp.StatusCode, resp.Header, got)
	if err := json.Unmarshal(got, &body); err != nil || body.Count != 12 || len(body.Sample) != 5 || body.Items[11]["email"] != "contact@s11.example" {
		t.Fatalf("upload parsed %+v %v", body.Count, err)
	}

	var many strings.Builder
	many.WriteString("nom\n")
	for i := range 10_001 {
		fmt.Fprintf(&many, "n%d\n", i)
	}
	for _, tt := range []struct {
		name   string
		body   any
		status int
	}{
		{"empty text", map[string]any{"text": ""}, 422},
		{"header only", map[string]any{"text": "nom;site\n"}, 422},
		{"10,001 rows", map[string]any{"text": many.String()}, 422},
		{"a stray quote", map[string]any{"text": "nom,site\n\"a,b\n"}, 400},
		{"not JSON", "{", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c.Do("POST", "/api/jobs/parse-list", tt.body).Must(t, tt.status)
		})
	}
}
