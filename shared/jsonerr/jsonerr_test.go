package jsonerr_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/prospectdata/svc/shared/jsonerr"
)

type Common struct {
	Queries []string `json:"queries"`
}

type node struct {
	ID     string          `json:"id"`
	Config json.RawMessage `json:"config"`
}

type body struct {
	Common
	Nodes []node          `json:"nodes"`
	Max   *int            `json:"max_per_phone"`
	Ratio float64         `json:"ratio"`
	On    bool            `json:"on"`
	Tags  map[string]int  `json:"tags"`
	Inner struct{ A int } `json:"inner"`
	Item  item            `json:"item"`
}

// item refuses anything but an object, in its own words.
type item struct{}

func (*item) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return errors.New("an item is an object")
	}
	return nil
}

// TestMessage: what a caller reads of a body that did not decode: the
// field by its path in the body and the JSON type it takes, never a Go
// type or struct name; where malformed JSON breaks; a type's own refusal.
func TestMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"queries":"x"}`, "queries: expected array"},
		{`{"queries":[1]}`, "queries: expected string"},
		{`{"nodes":"x"}`, "nodes: expected array"},
		{`{"nodes":[{"id":3}]}`, "nodes.id: expected string"},
		{`{"max_per_phone":"x"}`, "max_per_phone: expected integer"},
		{`{"max_per_phone":1.5}`, "max_per_phone: expected integer"},
		{`{"ratio":"x"}`, "ratio: expected number"},
		{`{"on":1}`, "on: expected boolean"},
		{`{"tags":[]}`, "tags: expected object"},
		{`{"tags":{"a":"x"}}`, "tags: expected integer"}, // encoding/json names no map key
		{`{"inner":{"A":true}}`, "inner.A: expected integer"},
		{`[1]`, "expected object"},
		{`{"on":tru}`, "invalid JSON at byte 10"},
		{`{"item":[]}`, "an item is an object"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var b body
			err := json.Unmarshal([]byte(tt.in), &b)
			if err == nil {
				t.Fatal("decoded")
			}
			if got := jsonerr.Message(err, &b); got != tt.want {
				t.Errorf("Message = %q, want %q (decoder: %v)", got, tt.want, err)
			}
		})
	}
}

// TestWrongType: only type errors are wrong types.
func TestWrongType(t *testing.T) {
	var b body
	err := json.Unmarshal([]byte(`{"queries":{}}`), &b)
	if field, want, ok := jsonerr.WrongType(err, &b); !ok || field != "queries" || want != "array" {
		t.Errorf("WrongType = %q %q %v (%v)", field, want, ok, err)
	}
	err = json.Unmarshal([]byte(`{"queries":`), &b)
	if _, _, ok := jsonerr.WrongType(err, &b); ok {
		t.Errorf("a syntax error is a wrong type: %v", err)
	}
}
