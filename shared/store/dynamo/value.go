package dynamo

import (
	"fmt"
	"math"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/prospectdata/svc/shared/store"
)

// The value codec between store values and DynamoDB AttributeValues. It is
// written by hand rather than with feature/dynamodb/attributevalue because
// the store's read rules differ from that package's defaults (integral
// numbers as int64, lists of strings as []string, never string sets) and
// because it must share store's number parsing so that both drivers read
// the same text the same way.

// marshalValue converts a value already normalised by store.Normalize (so
// only int64 and float64 remain among numbers, and maps are map[string]any).
// Strings lists become L of S, never SS: a set would lose order and
// duplicates and could not hold an empty list.
func marshalValue(v any) (types.AttributeValue, error) {
	switch x := v.(type) {
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case string:
		return &types.AttributeValueMemberS{Value: x}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}, nil
	case int64:
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(x, 10)}, nil
	case float64:
		return &types.AttributeValueMemberN{Value: formatFloat(x)}, nil
	case []byte:
		// The SDK base64-encodes on the wire; the slice is not retained
		// past the request, so no copy.
		return &types.AttributeValueMemberB{Value: x}, nil
	case []string:
		l := make([]types.AttributeValue, len(x))
		for i, s := range x {
			l[i] = &types.AttributeValueMemberS{Value: s}
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case []any:
		l := make([]types.AttributeValue, len(x))
		for i, e := range x {
			av, err := marshalValue(e)
			if err != nil {
				return nil, err
			}
			l[i] = av
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case map[string]any:
		m, err := marshalMap(x)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case store.Item:
		return marshalValue(map[string]any(x))
	}
	// Normalize has run: anything else is a bug of this package, but it is
	// reported like any unsupported value rather than panicking.
	return nil, fmt.Errorf("%w: unsupported value type %T", store.ErrInvalid, v)
}

func marshalMap(m map[string]any) (map[string]types.AttributeValue, error) {
	out := make(map[string]types.AttributeValue, len(m))
	for k, e := range m {
		av, err := marshalValue(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// normalizeAndMarshal validates v with the store's rules (so an unsupported
// value fails with store.ErrInvalid exactly as on bolt) and converts it.
func normalizeAndMarshal(v any) (types.AttributeValue, error) {
	n, err := store.Normalize(v)
	if err != nil {
		return nil, err
	}
	return marshalValue(n)
}

// formatFloat writes integral floats as integers (they read back as int64
// anyway, and DynamoDB compares numbers by value) and others in the
// shortest form that round-trips; DynamoDB's N accepts exponent notation.
// Values outside DynamoDB's range (magnitude above 1e125 or below 1e-130)
// are refused by the service with a ValidationException, which the driver
// reports as store.ErrInvalid.
func formatFloat(f float64) string {
	if t := math.Trunc(f); t == f && t >= -0x1p63 && t < 0x1p63 {
		return strconv.FormatInt(int64(t), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// unmarshalValue applies the store's read rules: numbers are int64 when
// integral and in range, float64 otherwise (store.ParseNumber, shared with
// the bolt codec); an L whose elements are all S is []string (an empty L
// too), any other L is []any; NULL is nil. Sets, which this driver never
// writes but another writer might, read as lists.
func unmarshalValue(av types.AttributeValue) (any, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return x.Value, nil
	case *types.AttributeValueMemberN:
		n, err := store.ParseNumber(x.Value)
		if err != nil {
			return nil, fmt.Errorf("number %q: %w", x.Value, err)
		}
		return n, nil
	case *types.AttributeValueMemberBOOL:
		return x.Value, nil
	case *types.AttributeValueMemberNULL:
		return nil, nil
	case *types.AttributeValueMemberB:
		return x.Value, nil
	case *types.AttributeValueMemberL:
		return unmarshalList(x.Value)
	case *types.AttributeValueMemberM:
		return unmarshalMap(x.Value)
	case *types.AttributeValueMemberSS:
		return append([]string{}, x.Value...), nil
	case *types.AttributeValueMemberNS:
		out := make([]any, len(x.Value))
		for i, s := range x.Value {
			n, err := store.ParseNumber(s)
			if err != nil {
				return nil, fmt.Errorf("number %q: %w", s, err)
			}
			out[i] = n
		}
		return out, nil
	case *types.AttributeValueMemberBS:
		out := make([]any, len(x.Value))
		for i, b := range x.Value {
			out[i] = b
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown attribute value type %T", av)
}

func unmarshalList(l []types.AttributeValue) (any, error) {
	strs := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(*types.AttributeValueMemberS)
		if !ok {
			break
		}
		strs = append(strs, s.Value)
	}
	if len(strs) == len(l) {
		return strs, nil
	}
	out := make([]any, len(l))
	for i, e := range l {
		v, err := unmarshalValue(e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func unmarshalMap(m map[string]types.AttributeValue) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, e := range m {
		v, err := unmarshalValue(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}
