package export

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

func TestParseListDetectsDelimiterAndBOM(t *testing.T) {
	// DESIGN.md: "the delimiter (',', ';' or tab) and a BOM are detected".
	tests := []struct {
		name string
		text string
		want string // items as fmt prints them
	}{
		{"comma", "nom,site_web\nA,https://a.fr\nB,https://b.fr\n", "[map[nom:A site_web:https://a.fr] map[nom:B site_web:https://b.fr]]"},
		{"semicolon with BOM and CRLF", "\uFEFFnom;site_web\r\nA;https://a.fr\r\n", "[map[nom:A site_web:https://a.fr]]"},
		{"tab", "nom\tsite_web\nA\thttps://a.fr\n", "[map[nom:A site_web:https://a.fr]]"},
		{"semicolon with commas in values", "nom;adresse\nA;12, rue X\nB;3, place Y\n", "[map[adresse:12, rue X nom:A] map[adresse:3, place Y nom:B]]"},
		{"comma with quoted semicolons", "nom,adresse\n\"A;B\",\"1; 2\"\nC,d\n", "[map[adresse:1; 2 nom:A;B] map[adresse:d nom:C]]"},
		{"quoted delimiters in header", "\"a,b\";c\n1;2\n", "[map[a,b:1 c:2]]"},
		{"quoted newline in a cell", "nom,notes\nA,\"l1\nl2\"\n", "[map[nom:A notes:l1\nl2]]"},
		{"one column with commas in data", "lien_maps\nhttps://x/?a=1,2\nhttps://y\n", "[map[lien_maps:https://x/?a=1,2] map[lien_maps:https://y]]"},
		{"trimmed names and cells, blank rows dropped", "  nom  ; site_web \n\n A ; https://a.fr \n;;\n \n", "[map[nom:A site_web:https://a.fr]]"},
		{"unnamed column left out", "nom;;site_web;\nA;x;https://a.fr;\n", "[map[nom:A site_web:https://a.fr]]"},
		{"repeated names", "email,email\na@x.fr,b@x.fr\n", "[map[email:a@x.fr email_2:b@x.fr]]"},
		{"short row padded", "nom,site_web,telephone\nA\n", "[map[nom:A site_web: telephone:]]"},
		{"leading blank lines", "\n\nnom\nA\n", "[map[nom:A]]"},
		{"no final newline", "nom;ville\nA;Lyon", "[map[nom:A ville:Lyon]]"},
		{"header majority wins over a stray delimiter", "nom;site;tel\nA, SARL;https://a.fr;01\nB;https://b.fr;02\n", "[map[nom:A, SARL site:https://a.fr tel:01] map[nom:B site:https://b.fr tel:02]]"},
		{"header names like values are not", "email,site web,code postal 2\na@b.fr,https://b.fr,69002\n", "[map[code postal 2:69002 email:a@b.fr site web:https://b.fr]]"},
		{"formula-like values kept as typed", "nom,tel\n=A,+33 4\n", "[map[nom:=A tel:+33 4]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := ParseList(strings.NewReader(tt.text), 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(items); got != tt.want {
				t.Errorf("items %s\nwant  %s", got, tt.want)
			}
		})
	}
}

func TestParseListOtherEncodings(t *testing.T) {
	text := "nom;ville\r\nCafé Lefèvre;Besançon\r\n"
	want := "[map[nom:Café Lefèvre ville:Besançon]]"
	utf16le, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String(strings.ReplaceAll(text, ";", "\t"))
	utf16be, _ := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder().String(text)
	cp1252, _ := charmap.Windows1252.NewEncoder().String(text)
	for name, in := range map[string]string{"UTF-16LE with BOM (Excel Unicode text)": utf16le, "UTF-16BE with BOM": utf16be, "Windows-1252": cp1252} {
		t.Run(name, func(t *testing.T) {
			items, err := ParseList(strings.NewReader(in), 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(items); got != want {
				t.Errorf("items %s, want %s", got, want)
			}
		})
	}
}

func TestParseListErrors(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		maxBytes int64
		maxItems int
		want     error
		line     int
	}{
		{"empty", "", 0, 0, ErrEmpty, 0},
		{"white space only", " \r\n\t\n", 0, 0, ErrEmpty, 0},
		{"BOM only", "\uFEFF", 0, 0, ErrEmpty, 0},
		{"header and no row", "nom;site_web\r\n", 0, 0, ErrEmpty, 0},
		{"header and blank rows", "nom;site_web\r\n;\r\n\r\n", 0, 0, ErrEmpty, 0},
		{"separators only", ";;;\n;;\n", 0, 0, ErrEmpty, 0},
		{"first row is a URL", "https://a.fr\nhttps://b.fr\n", 0, 0, ErrNoHeader, 0},
		{"first row is an email", "Dupont;dupont@a.fr\nMartin;martin@b.fr\n", 0, 0, ErrNoHeader, 0},
		{"first row is a phone number", "A,+33 4 78 12 34 56\nB,04 78 00 00 00\n", 0, 0, ErrNoHeader, 0},
		{"first row is a www address", "www.a.fr\n", 0, 0, ErrNoHeader, 0},
		{"too many items", "nom\nA\nB\nC\n", 0, 2, ErrTooManyItems, 0},
		{"too large", "nom\n" + strings.Repeat("A\n", 100), 50, 0, ErrTooLarge, 0},
		{"unterminated quote", "nom;ville\nA;Lyon\n\"B;Paris\n", 0, 0, ErrMalformed, 3},
		{"bare quote", "nom;ville\nA;Lyon\nLe \"Bar;Paris\n", 0, 0, ErrMalformed, 3},
		{"row longer than header", "nom;ville\nA;Lyon\nB;Paris;75011\n", 0, 0, ErrMalformed, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := ParseList(strings.NewReader(tt.text), tt.maxBytes, tt.maxItems)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ParseList = %v, %v; want %v", items, err, tt.want)
			}
			var me *MalformedError
			if errors.As(err, &me) && me.Line != tt.line {
				t.Errorf("line %d, want %d", me.Line, tt.line)
			}
		})
	}
}

func TestParseListCapsAreInclusive(t *testing.T) {
	text := "nom\n" + strings.Repeat("A\n", 3)
	if items, err := ParseList(strings.NewReader(text), int64(len(text)), 3); err != nil || len(items) != 3 {
		t.Errorf("exactly at both caps: %d items, %v", len(items), err)
	}
	// The spec's 10,000 items fit the default 5 MiB.
	var b strings.Builder
	b.WriteString(strings.Join(businessHeader, ";") + "\r\n")
	for _, row := range businessRows(MaxParseListItems) {
		for i := range row {
			row[i] = strings.NewReplacer(";", " ", `"`, "").Replace(row[i])
		}
		b.WriteString(strings.Join(row, ";") + "\r\n")
	}
	items, err := ParseList(strings.NewReader(b.String()), 0, 0)
	if err != nil || len(items) != MaxParseListItems {
		t.Errorf("10,000 business rows (%d bytes): %d items, %v", b.Len(), len(items), err)
	}
}

func TestParseListReadsOwnExport(t *testing.T) {
	rows := businessRows(50)
	items, err := ParseList(bytes.NewReader(writeCSV(t, businessHeader, rows)), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		for j, key := range businessHeader {
			if want := strings.TrimSpace(Neutralise(row[j])); items[i][key] != want {
				t.Fatalf("item %d %s = %q, want %q", i, key, items[i][key], want)
			}
		}
	}
}

func FuzzParseList(f *testing.F) {
	for _, seed := range []string{
		"nom,site_web\nA,https://a.fr\n", "\uFEFFnom;ville\r\n\"A;B\";\"x\"\"y\"\r\n", "a\tb\n1\t2\n",
		"\"unterminated", "a;a;;\n;;\n1;2;3;4\n", "\xff\xfe\x00a", "\xfe\xff\x00a\x00\n", "\x80\x81\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		items, err := ParseList(strings.NewReader(text), 1<<16, 100)
		if err != nil {
			for _, e := range []error{ErrEmpty, ErrNoHeader, ErrTooManyItems, ErrTooLarge, ErrMalformed} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("error %v wraps no sentinel", err)
		}
		if len(items) == 0 || len(items) > 100 {
			t.Fatalf("%d items", len(items))
		}
		for _, item := range items {
			blank := true
			for k, v := range item {
				if k == "" || strings.TrimSpace(k) != k || strings.TrimSpace(v) != v || !utf8.ValidString(k) {
					t.Fatalf("bad key or value %q: %q", k, v)
				}
				blank = blank && v == ""
			}
			if blank || len(item) != len(items[0]) {
				t.Fatalf("blank item or width differs: %v", item)
			}
		}
	})
}
