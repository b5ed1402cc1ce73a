package store

import "fmt"

// Accessors that read an attribute as the type a repository stored. They
// return the zero value when the attribute is missing or of another kind, so a
// repository decodes an item in one pass without type switches.

// Padded writes a non-negative n (an id, a sequence number, a time in
// milliseconds) in 20 zero-padded digits, every int64's width: sort keys
// built with it order numerically (docs/tables.md).
func Padded(n int64) string { return fmt.Sprintf("%020d", n) }

// String returns the string attribute.
func (it Item) String(attr string) string {
	s, _ := it[attr].(string)
	return s
}

// Int returns the numeric attribute as int64.
func (it Item) Int(attr string) int64 {
	switch v := it[attr].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// Float returns the numeric attribute as float64.
func (it Item) Float(attr string) float64 {
	switch v := it[attr].(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// Bool returns the boolean attribute.
func (it Item) Bool(attr string) bool {
	b, _ := it[attr].(bool)
	return b
}

// Bytes returns the binary attribute.
func (it Item) Bytes(attr string) []byte {
	b, _ := it[attr].([]byte)
	return b
}

// Strings returns a list attribute of strings.
func (it Item) Strings(attr string) []string {
	switch v := it[attr].(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Has reports whether the attribute is present.
func (it Item) Has(attr string) bool {
	_, ok := it[attr]
	return ok
}
