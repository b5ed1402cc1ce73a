package export

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func readAll(t *testing.T, text string) ([]string, [][]string, error) {
	t.Helper()
	cr, err := ReadCSV(strings.NewReader(text))
	if err != nil {
		return nil, nil, err
	}
	var rows [][]string
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return cr.Header(), rows, nil
		}
		if err != nil {
			return cr.Header(), rows, err
		}
		rows = append(rows, slices.Clone(row))
	}
}

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		header []string
		rows   [][]string
	}{
		{"with BOM", "\uFEFFa;b\r\n1;2\r\n", []string{"a", "b"}, [][]string{{"1", "2"}}},
		{"without BOM", "a;b\n1;2\n", []string{"a", "b"}, [][]string{{"1", "2"}}},
		{"header only", "\uFEFFa;b\r\n", []string{"a", "b"}, nil},
		{"short row padded", "a;b;c\r\n1\r\n", []string{"a", "b", "c"}, [][]string{{"1", "", ""}}},
		{"trailing empty cells ignored", "a;b\r\n1;2;;\r\n", []string{"a", "b"}, [][]string{{"1", "2"}}},
		{"quoted newline", "a;b\r\n\"x\r\ny\";2\r\n", []string{"a", "b"}, [][]string{{"x\ny", "2"}}},
		{"duplicate and empty names", "a;a;;b\r\n1;2;3;4\r\n", []string{"a", "a_2", "column_3", "b"}, [][]string{{"1", "2", "3", "4"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header, rows, err := readAll(t, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(header, tt.header) {
				t.Errorf("header %q, want %q", header, tt.header)
			}
			if !slices.EqualFunc(rows, tt.rows, slices.Equal) {
				t.Errorf("rows %q, want %q", rows, tt.rows)
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want error
		line int
	}{
		{"empty", "", ErrEmpty, 0},
		{"BOM only", "\uFEFF", ErrEmpty, 0},
		{"row longer than header", "a;b\r\n1;2\r\n1;2;3\r\n", ErrMalformed, 3},
		{"unterminated quote", "a;b\r\n1;2\r\n\"x;2\r\n", ErrMalformed, 3},
		{"bare quote", "a;b\r\nx\"y;2\r\n", ErrMalformed, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readAll(t, tt.text)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			var me *MalformedError
			if errors.As(err, &me) && me.Line != tt.line {
				t.Errorf("line %d, want %d", me.Line, tt.line)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	got := Keys([]string{" nom ", "nom", "", "nom_2", "nom"})
	want := []string{"nom", "nom_2", "column_3", "nom_2_2", "nom_3"}
	if !slices.Equal(got, want) {
		t.Errorf("Keys = %q, want %q", got, want)
	}
}
