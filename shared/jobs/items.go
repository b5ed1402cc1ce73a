package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
)

// Limits of an item-driven job request (spec: "Item-driven job request").
const (
	MaxItems = 10000
	// MaxItemKeys and MaxCell bound one item: a CSV row of an earlier job
	// has short cells and at most an import's 200 columns plus those the
	// modules of a pipeline add (about 100; pipelines
	// TestWidestRowFitsAnItem keeps the sum under this).
	MaxItemKeys = 400
	MaxCell     = 8 << 10
)

// Item is one entry of items: a row whose columns keep the order in which
// the caller sent its keys (the output keeps every input column in order,
// spec: "Column guarantee"). Values are text: numbers and booleans as JSON
// writes them, null as "", objects and arrays as their JSON.
type Item struct {
	Keys   []string
	Values []string
}

// Get returns the value of key and whether the item has it.
func (it Item) Get(key string) (string, bool) {
	for i, k := range it.Keys {
		if k == key {
			return it.Values[i], true
		}
	}
	return "", false
}

// UnmarshalJSON reads an object keeping its keys' order; a key sent twice
// keeps its last value at its first place.
func (it *Item) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("an item is an object")
	}
	*it = Item{}
	seen := map[string]int{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key := kt.(string) // object keys are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		v, err := cellText(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if i, ok := seen[key]; ok {
			it.Values[i] = v
			continue
		}
		if len(it.Keys) == MaxItemKeys {
			return fmt.Errorf("more than %d keys", MaxItemKeys)
		}
		seen[key] = len(it.Keys)
		it.Keys = append(it.Keys, key)
		it.Values = append(it.Values, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the item")
	}
	return nil
}

// MarshalJSON writes the item as an object in its keys' order.
func (it Item) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range it.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(it.Values[i])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// cellText is a JSON value as a cell.
func cellText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > MaxCell+2 {
		return "", fmt.Errorf("a value is longer than %d bytes", MaxCell)
	}
	switch {
	case len(raw) == 0:
		return "", errors.New("no value")
	case string(raw) == "null":
		return "", nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	case string(raw) == "true" || string(raw) == "false":
		return string(raw), nil
	case raw[0] == '{' || raw[0] == '[':
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			return "", err
		}
		return c.String(), nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", err
	}
	return n.String(), nil
}

// ItemColumns is the ordered union of the items' keys: each key at the
// place of its first appearance.
func ItemColumns(items []Item) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		for _, k := range it.Keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// CheckItems applies the spec's rules on items: 1 to MaxItems entries,
// each holding the keys the module needs (422 naming the first items that
// lack one, and the key).
func CheckItems(items []Item, needs []string) error {
	switch {
	case len(items) == 0:
		return apperr.Fields(apperr.Field("items", "items est vide : envoie au moins un élément.",
			"items is empty: send at least one entry."))
	case len(items) > MaxItems:
		return apperr.Fields(apperr.Field("items",
			fmt.Sprintf("items contient %d éléments, au plus %d.", len(items), MaxItems),
			fmt.Sprintf("items has %d entries, at most %d.", len(items), MaxItems)))
	}
	for _, key := range needs {
		var missing []string
		for i, it := range items {
			if _, ok := it.Get(key); !ok {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		if len(missing) == 0 {
			continue
		}
		n := len(missing)
		if n > 5 {
			missing = append(missing[:5], "…")
		}
		list := strings.Join(missing, ", ")
		return apperr.Fields(apperr.Field("items",
			fmt.Sprintf("%d élément(s) sans la clé %q, requise par ce module (items %s).", n, key, list),
			fmt.Sprintf("%d item(s) lack the key %q this module requires (items %s).", n, key, list)))
	}
	return nil
}
