package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestToJSONRoundTrip(t *testing.T) {
	rows := businessRows(2000)
	rows = append(rows, []string{"Café \"Chez\"\nLéa", "", "+33", "a\\b", "\x01\x1f", "\u2028\u2029", "", "", "", "", "", "", "", "", "", ""})
	var out bytes.Buffer
	if err := ToJSON(&out, bytes.NewReader(writeCSV(t, businessHeader, rows))); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	dec := json.NewDecoder(&out)
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("encoding/json cannot read the export: %v", err)
	}
	if len(got) != len(rows) {
		t.Fatalf("%d objects, want %d", len(got), len(rows))
	}
	for i, row := range rows {
		for j, key := range businessHeader {
			// Typed by the column table, the guard undone.
			checkJSONCell(t, i, key, row[j], got[i][key])
		}
	}
}

func TestToJSONKeepsHeaderOrder(t *testing.T) {
	var out bytes.Buffer
	data := writeCSV(t, []string{"zeta", "alpha", "mu"}, [][]string{{"1", "2", "3"}})
	if err := ToJSON(&out, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if want := "[\n{\"zeta\":\"1\",\"alpha\":\"2\",\"mu\":\"3\"}\n]\n"; out.String() != want {
		t.Errorf("JSON = %q, want %q", out.String(), want)
	}
}

func TestToJSONEmpty(t *testing.T) {
	var out bytes.Buffer
	if err := ToJSON(&out, strings.NewReader("\uFEFFa;b\r\n")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "[]\n" {
		t.Errorf("JSON of a header-only CSV = %q, want []", out.String())
	}
	if err := ToJSON(&out, strings.NewReader("")); !errors.Is(err, ErrEmpty) {
		t.Errorf("JSON of an empty file: %v, want ErrEmpty", err)
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "\n\r\t\b\f\x00\x1f\x7f", "é東京🙂",
		"\u2028\u2029", "bad \xff\xfe utf8", "trunc \xe2\x82", "<html>&",
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got := string(appendJSONString(nil, s))
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%q encoded as invalid JSON %s: %v", s, got, err)
			continue
		}
		var wantBack string
		_ = json.Unmarshal(want.Bytes(), &wantBack)
		if back != wantBack {
			t.Errorf("%q decodes to %q, encoding/json's to %q", s, back, wantBack)
		}
	}
}
