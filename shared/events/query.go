package events

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
)

// normalize applies the defaults and checks the ranges of a query: a 422
// naming each invalid field.
func (q Query) normalize() (Query, error) {
	var errs []apperr.FieldError
	if q.SinceID < 0 {
		errs = append(errs, sinceErr())
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	} else if q.Limit < 1 || q.Limit > MaxLimit {
		errs = append(errs, limitErr())
	}
	var types []string
	for _, t := range q.Types {
		switch {
		case !Known(t):
			errs = append(errs, typeErr(t))
		case !slices.Contains(types, t):
			types = append(types, t)
		}
	}
	q.Types = types
	if len(errs) > 0 {
		return q, apperr.Fields(errs...)
	}
	return q, nil
}

func sinceErr() apperr.FieldError {
	return apperr.Field("since_id", "doit être un entier positif ou nul", "must be an integer at least 0")
}

func limitErr() apperr.FieldError {
	return apperr.Field("limit", "doit être un entier de 1 à 100", "must be an integer from 1 to 100")
}

func typeErr(t string) apperr.FieldError {
	return apperr.Field("types", "type d'événement inconnu : "+strconv.Quote(t), "unknown event type "+strconv.Quote(t))
}

// ParseQuery reads the query string of GET /api/events strictly:
//
//   - since_id: decimal digits, at least 0, default 0;
//   - limit: decimal digits, 1 to 100, default 50; out of range is a 422
//     (the spec gives the range; only GET /api/jobs is documented as
//     clamping);
//   - order: asc (default) or desc;
//   - types: comma-separated event types, spaces around them and empty
//     elements ignored, repeated parameters merged; an unknown type is a 422
//     naming it.
//
// since_id, limit and order given twice, or given empty, are 422s. Other
// parameters are ignored. Every invalid field is named in one 422.
func ParseQuery(v url.Values) (Query, error) {
	var q Query
	var errs []apperr.FieldError
	// once returns the parameter's only value, if it was given once.
	once := func(name string) (string, bool) {
		vals, ok := v[name]
		if !ok {
			return "", false
		}
		if len(vals) != 1 {
			errs = append(errs, apperr.Field(name, "ne doit être donné qu'une fois", "must be given once"))
			return "", false
		}
		return vals[0], true
	}
	if s, given := once("since_id"); given {
		n, good := digits(s)
		if !good {
			errs = append(errs, sinceErr())
		}
		q.SinceID = n
	}
	if s, given := once("limit"); given {
		n, good := digits(s)
		if !good || n < 1 || n > MaxLimit {
			errs = append(errs, limitErr())
		} else {
			q.Limit = int(n)
		}
	}
	if s, given := once("order"); given {
		switch s {
		case "asc":
		case "desc":
			q.Desc = true
		default:
			errs = append(errs, apperr.Field("order", "doit valoir asc ou desc", "must be asc or desc"))
		}
	}
	for _, list := range v["types"] {
		for t := range strings.SplitSeq(list, ",") {
			t = strings.TrimSpace(t)
			if t == "" {
				continue
			}
			if !Known(t) {
				errs = append(errs, typeErr(t))
				continue
			}
			if !slices.Contains(q.Types, t) {
				q.Types = append(q.Types, t)
			}
		}
	}
	if len(errs) > 0 {
		return Query{}, apperr.Fields(errs...)
	}
	return q, nil
}

// digits parses a non-negative decimal integer made of ASCII digits only
// (no sign, no space), within int64.
func digits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
