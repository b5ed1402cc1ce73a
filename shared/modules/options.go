package modules

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jsonerr"
)

// Kind is the JSON type of an option's value.
type Kind int

// Kinds of options.
const (
	// Enum is a string among Option.Values.
	Enum Kind = iota + 1
	// Bool is a boolean.
	Bool
	// Int is an integer within Option.Min and Option.Max.
	Int
)

// Type is the Go type a value of the kind takes (string, bool, int): a
// documented body's field, and the type a type error names (jsonerr.Type).
func (k Kind) Type() reflect.Type {
	switch k {
	case Bool:
		return reflect.TypeFor[bool]()
	case Int:
		return reflect.TypeFor[int]()
	}
	return reflect.TypeFor[string]()
}

// Option is one setting of a module's jobs of items: a field of its
// POST /api/jobs/{type} body and, when InNode, of its pipeline node's
// config. Everything the service does with a setting (check it, default
// it, price it, document it, hand it to the module) reads this.
type Option struct {
	Name string
	Kind Kind
	// Values are an Enum's values.
	Values []string
	// Default is the value of a job that does not set it: a string, a
	// bool or an int, by Kind.
	Default any
	// Min and Max bound an Int.
	Min, Max int
	// ZeroMeans says, in both languages, what an Int's 0 means when it
	// means something of its own (period_months: no limit).
	ZeroMeans Label
	// NodeLabel is the field's label in the pipeline node's schema.
	NodeLabel string
	// InNode says the module's pipeline node takes it in its config.
	InNode bool
	// Factor multiplies the item price by a value of the option (the
	// value's JSON text: "deep", "true").
	Factor map[string]float64
	// Doc says what the option does, in the API reference.
	Doc string
}

// Values are a job's settings, by option name: a string, a bool or an
// int, by the option's Kind. A module's Read gives every option of the
// module, defaults filled.
type Values map[string]any

// String is a string option's value, "" when absent.
func (v Values) String(name string) string {
	s, _ := v[name].(string)
	return s
}

// Bool is a bool option's value, false when absent.
func (v Values) Bool(name string) bool {
	b, _ := v[name].(bool)
	return b
}

// Int is an int option's value and whether it is set.
func (v Values) Int(name string) (int, bool) {
	n, ok := v[name].(int)
	return n, ok
}

// text is a value's JSON text, the key of Option.Factor.
func text(x any) string {
	switch x := x.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	}
	return fmt.Sprint(x)
}

// Option returns the module's option of that name.
func (e Entry) Option(name string) (Option, bool) {
	i := slices.IndexFunc(e.Options, func(o Option) bool { return o.Name == name })
	if i < 0 {
		return Option{}, false
	}
	return e.Options[i], true
}

// Factor is the product of the price multipliers of the values.
func (e Entry) Factor(v Values) float64 {
	f := 1.0
	for _, o := range e.Options {
		if m, ok := o.Factor[text(v[o.Name])]; ok {
			f *= m
		}
	}
	return f
}

// Read checks the settings a job of the module was asked for (sent: by
// option name, as decoded from JSON: string, bool, float64; a nil value is
// not set) and returns every option of the module, defaults filled. A
// value of the wrong type, an option of another module (so that a
// misplaced setting is not silently ignored) and a value out of range are
// each a 422 naming the field; names that are no module's option are
// ignored, as any unknown body field is.
func (e Entry) Read(sent map[string]any) (Values, error) {
	out := Values{}
	for _, o := range e.Options {
		out[o.Name] = o.Default
	}
	for _, owner := range Entries() {
		for _, o := range owner.Options {
			raw, ok := sent[o.Name]
			if !ok || raw == nil {
				continue
			}
			v, err := o.value(raw)
			if err != nil {
				return nil, err
			}
			if owner.Slug != e.Slug {
				return nil, apperr.Fields(apperr.Field(o.Name,
					o.Name+" n'existe que pour le module "+owner.Slug+".",
					o.Name+" only applies to the "+owner.Slug+" module."))
			}
			out[o.Name] = v
		}
	}
	return out, nil
}

// value checks one sent value against the option.
func (o Option) value(raw any) (any, error) {
	typeErr := apperr.WrongType(o.Name, jsonerr.Type(o.Kind.Type()))
	switch o.Kind {
	case Bool:
		b, ok := raw.(bool)
		if !ok {
			return nil, typeErr
		}
		return b, nil
	case Int:
		f, ok := raw.(float64)
		if !ok || f != math.Trunc(f) {
			return nil, typeErr
		}
		if f < float64(o.Min) || f > float64(o.Max) {
			low := strconv.Itoa(o.Min)
			lowFR, lowEN := low, low
			if o.Min == 0 && o.ZeroMeans.EN != "" {
				lowFR, lowEN = low+" ("+o.ZeroMeans.FR+")", low+" ("+o.ZeroMeans.EN+")"
			}
			return nil, apperr.Fields(apperr.Field(o.Name,
				fmt.Sprintf("%s va de %s à %d.", o.Name, lowFR, o.Max),
				fmt.Sprintf("%s is %s to %d.", o.Name, lowEN, o.Max)))
		}
		return int(f), nil
	}
	s, ok := raw.(string)
	if !ok {
		return nil, typeErr
	}
	if !slices.Contains(o.Values, s) {
		return nil, apperr.Fields(apperr.Field(o.Name,
			o.Name+" vaut "+strings.Join(o.Values, " ou ")+".",
			o.Name+" is "+strings.Join(o.Values, " or ")+"."))
	}
	return s, nil
}
