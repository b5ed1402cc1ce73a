package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestItemsPaging(t *testing.T) {
	rows := businessRows(25)
	data := writeCSV(t, businessHeader, rows)
	tests := []struct {
		name          string
		offset, limit int
		wantFirst     int // index of the first row returned
		wantCount     int
	}{
		{"first page", 0, 10, 0, 10},
		{"middle page", 10, 10, 10, 10},
		{"last partial page", 20, 10, 20, 5},
		{"offset at total", 25, 10, 0, 0},
		{"offset beyond total", 100, 10, 0, 0},
		{"limit omitted returns every row", 0, 0, 0, 25},
		{"limit omitted from offset", 5, 0, 5, 20},
		{"limit above total", 0, MaxItemsLimit, 0, 25},
		{"limit one", 24, 1, 24, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			count, total, items, err := Items(bytes.NewReader(data), tt.offset, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if total != 25 || count != tt.wantCount || len(items) != count {
				t.Fatalf("count %d, total %d, len %d; want count %d, total 25", count, total, len(items), tt.wantCount)
			}
			for i, item := range items {
				if item["nom"] != Restore(Neutralise(rows[tt.wantFirst+i][0])) || len(item) != len(businessHeader) {
					t.Errorf("item %d = %v, want row %d", i, item, tt.wantFirst+i)
				}
			}
			// The streamed response holds the same page.
			var out bytes.Buffer
			c2, t2, err := WriteItems(&out, bytes.NewReader(data), tt.offset, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var page struct {
				Count, Total, Offset int
				Items                []map[string]any
			}
			dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
			dec.UseNumber()
			if err := dec.Decode(&page); err != nil {
				t.Fatalf("WriteItems wrote invalid JSON: %v", err)
			}
			if c2 != count || t2 != total || page.Count != count || page.Total != total || page.Offset != tt.offset {
				t.Errorf("WriteItems page %d/%d/%d, returned %d/%d, want %d/%d", page.Count, page.Total, page.Offset, c2, t2, count, total)
			}
			streamed, _ := json.Marshal(page.Items)
			built, _ := json.Marshal(items)
			if !bytes.Equal(streamed, built) && !(len(items) == 0 && len(page.Items) == 0) {
				t.Errorf("WriteItems items differ from Items")
			}
		})
	}
}

func TestItemsErrors(t *testing.T) {
	if _, _, _, err := Items(strings.NewReader("a;b\r\n"), -1, 10); !errors.Is(err, ErrPage) {
		t.Errorf("negative offset: %v, want ErrPage", err)
	}
	if _, _, err := WriteItems(&bytes.Buffer{}, strings.NewReader("a;b\r\n"), -1, 10); !errors.Is(err, ErrPage) {
		t.Errorf("WriteItems negative offset: %v, want ErrPage", err)
	}
	if _, _, _, err := Items(strings.NewReader(""), 0, 10); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty file: %v, want ErrEmpty", err)
	}
	if _, _, _, err := Items(strings.NewReader("a\r\n1;2\r\n"), 0, 10); !errors.Is(err, ErrMalformed) {
		t.Errorf("row longer than header: %v, want ErrMalformed", err)
	}
}

func TestItemsWithoutRows(t *testing.T) {
	count, total, items, err := Items(strings.NewReader("\uFEFFa;b\r\n"), 0, 10)
	if err != nil || count != 0 || total != 0 || len(items) != 0 {
		t.Errorf("header-only CSV: %d %d %v %v", count, total, items, err)
	}
}

func TestColumns(t *testing.T) {
	data := writeCSV(t, []string{"nom", "site_web", "email", "vide"}, [][]string{
		{"A", "", "", ""},
		{"B", "https://b.fr", "", "  "},
		{"C", "", "", ""},
	})
	cols, nonEmpty, rows, err := Columns(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cols) != "[nom site_web email vide]" || fmt.Sprint(nonEmpty) != "[nom site_web]" || rows != 3 {
		t.Errorf("Columns = %q %q %d", cols, nonEmpty, rows)
	}
	cols, nonEmpty, rows, err = Columns(strings.NewReader("\uFEFFa;b\r\n"))
	if err != nil || len(cols) != 2 || len(nonEmpty) != 0 || rows != 0 {
		t.Errorf("header-only: %q %q %d %v", cols, nonEmpty, rows, err)
	}
	if _, _, _, err := Columns(strings.NewReader("")); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty file: %v, want ErrEmpty", err)
	}
}

// lambdaBody is a body as a Lambda's HTTP API response carries it: a JSON
// string inside the invocation's JSON answer (encoding/json, HTML escaped:
// the larger form).
func lambdaBody(t *testing.T, body []byte) int64 {
	t.Helper()
	b, err := json.Marshal(string(body))
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(b) - 2) // without the string's quotes
}

func TestPayloadSizeCountsHigh(t *testing.T) {
	for _, s := range []string{
		"", "plain", `{"a":"b\"c"}`, "back\\slash", "line\nfeed\r\ttab", "\x01ctl", "<b>&amp;</b>",
		"sep\u2028par\u2029", "Nguyễn 東京 🙂",
	} {
		got, want := PayloadSize([]byte(s)), lambdaBody(t, []byte(s))
		if got < want {
			t.Errorf("PayloadSize(%q) = %d, below its size in a response %d", s, got, want)
		}
		if got > 2*want+8 {
			t.Errorf("PayloadSize(%q) = %d, far above %d", s, got, want)
		}
	}
}

// TestWriteItemsMaxStopsBeforeTheBound: a bounded page of wide rows stops
// before the bound (as carried in a Lambda response), count < limit, and
// the next pages continue where it stopped until every row is read.
func TestWriteItemsMaxStopsBeforeTheBound(t *testing.T) {
	header := []string{"nom", "avis", "note"}
	var rows [][]string
	for i := range 300 {
		// Quotes and newlines: each takes an escape in a response.
		rows = append(rows, []string{fmt.Sprintf("Lieu %d", i), strings.Repeat(`"très" bien`+"\n", 80), "4,5"})
	}
	data := writeCSV(t, header, rows)
	const bound = 64 << 10
	for _, limit := range []int{0, MaxItemsLimit} {
		offset, seen := 0, 0
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("paging does not end")
			}
			var out bytes.Buffer
			count, total, err := WriteItemsMax(&out, bytes.NewReader(data), offset, limit, bound)
			if err != nil {
				t.Fatal(err)
			}
			if size := lambdaBody(t, out.Bytes()); size > bound {
				t.Fatalf("limit %d offset %d: page of %d bytes in a response, over %d", limit, offset, size, bound)
			}
			var page struct {
				Offset, Count, Total int
				Items                []map[string]string
			}
			if err := json.Unmarshal(out.Bytes(), &page); err != nil {
				t.Fatal(err)
			}
			if page.Count != count || len(page.Items) != count || total != len(rows) || page.Total != total {
				t.Fatalf("count %d/%d items %d total %d", count, page.Count, len(page.Items), total)
			}
			for i, it := range page.Items {
				if it["nom"] != rows[offset+i][0] {
					t.Fatalf("item %d of page at %d is %q", i, offset, it["nom"])
				}
			}
			if count == 0 {
				t.Fatalf("empty page at %d of %d", offset, total)
			}
			seen += count
			offset += count
			if offset >= total {
				break
			}
			if pages == 0 && count >= len(rows) {
				t.Fatalf("the first page holds every row (%d): the bound did not apply", count)
			}
		}
		if seen != len(rows) {
			t.Errorf("limit %d: %d rows over the pages, want %d", limit, seen, len(rows))
		}
	}
	// Unbounded: every row.
	count, _, err := WriteItemsMax(&bytes.Buffer{}, bytes.NewReader(data), 0, 0, 0)
	if err != nil || count != len(rows) {
		t.Errorf("unbounded page: %d rows (%v), want %d", count, err, len(rows))
	}
}
