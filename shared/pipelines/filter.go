package pipelines

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/accent"
	"github.com/prospectdata/svc/shared/jsonerr"
)

// The filter node's rule grammar (docs/pipelines.md): a group is
// {logic: AND|OR, conditions: [...]}, each condition either a rule
// {column, op, value} or a nested group.
//
// Values compare sanely: when both the cell and the value read as numbers
// (a French decimal comma is a decimal point), numerically; otherwise as
// text, trimmed, without case or accents.

// Operators of a rule.
var Ops = []string{"=", "!=", ">", ">=", "<", "<=", "in", "not_in", "contains", "not_contains", "starts_with",
	"is_empty", "is_not_empty"}

// Limits of a rule set.
const (
	MaxRuleDepth = 5
	MaxRules     = 100
	maxRuleValue = 1000
)

// Group is a group of conditions.
type Group struct {
	Logic      string      `json:"logic"`
	Conditions []Condition `json:"conditions"`
}

// Condition is a rule or a nested group: a rule has a column and an op,
// a group a logic and conditions.
type Condition struct {
	Column     string      `json:"column,omitempty"`
	Op         string      `json:"op,omitempty"`
	Value      any         `json:"value,omitempty"`
	Logic      string      `json:"logic,omitempty"`
	Conditions []Condition `json:"conditions,omitempty"`
}

// Matcher is a rule set compiled against a CSV's header.
type Matcher struct{ root *cgroup }

type cgroup struct {
	or    bool
	rules []crule
	subs  []*cgroup
}

type crule struct {
	col  int
	op   string
	text string   // the value, folded
	num  float64  // the value as a number
	isN  bool     // the value reads as a number
	set  []string // in, not_in: folded members
	nums []float64
}

// ParseRules reads a filter's rules from its config value (a decoded JSON
// object) or raw JSON.
func ParseRules(v any) (Group, error) {
	var raw []byte
	switch x := v.(type) {
	case nil:
		return Group{Logic: "AND"}, nil
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return Group{}, ruleErr("Règles illisibles", "Unreadable rules")
		}
		raw = b
	}
	var g Group
	if err := json.Unmarshal(raw, &g); err != nil {
		msg := jsonerr.Message(err, &g)
		return Group{}, ruleErr("Règles illisibles : "+msg, "Unreadable rules: "+msg)
	}
	return g, nil
}

// Compile checks the rules against the header: every column must exist,
// every op be known, in/not_in take a list, the nesting and size stay in
// bounds. Errors are 400s saying which rule.
func Compile(g Group, header []string) (*Matcher, error) {
	count := 0
	root, err := compileGroup(g.Logic, g.Conditions, header, 1, &count)
	if err != nil {
		return nil, err
	}
	return &Matcher{root: root}, nil
}

func compileGroup(logic string, conds []Condition, header []string, depth int, count *int) (*cgroup, error) {
	if depth > MaxRuleDepth {
		return nil, ruleErr(fmt.Sprintf("Règles imbriquées sur plus de %d niveaux", MaxRuleDepth),
			fmt.Sprintf("Rules nested more than %d levels deep", MaxRuleDepth))
	}
	g := &cgroup{}
	switch strings.ToUpper(strings.TrimSpace(logic)) {
	case "", "AND":
	case "OR":
		g.or = true
	default:
		return nil, ruleErr(fmt.Sprintf("logic vaut AND ou OR, pas %q", logic), fmt.Sprintf("logic is AND or OR, not %q", logic))
	}
	for _, c := range conds {
		if *count++; *count > MaxRules {
			return nil, ruleErr(fmt.Sprintf("Plus de %d règles", MaxRules), fmt.Sprintf("More than %d rules", MaxRules))
		}
		if c.Column == "" && c.Op == "" {
			sub, err := compileGroup(c.Logic, c.Conditions, header, depth+1, count)
			if err != nil {
				return nil, err
			}
			g.subs = append(g.subs, sub)
			continue
		}
		r, err := compileRule(c, header)
		if err != nil {
			return nil, err
		}
		g.rules = append(g.rules, r)
	}
	return g, nil
}

func compileRule(c Condition, header []string) (crule, error) {
	col := slices.Index(header, c.Column)
	if col < 0 {
		return crule{}, ruleErr(fmt.Sprintf("Colonne inconnue : %q", c.Column), fmt.Sprintf("Unknown column: %q", c.Column))
	}
	if !slices.Contains(Ops, c.Op) {
		return crule{}, ruleErr(fmt.Sprintf("Opérateur inconnu : %q (%s)", c.Op, strings.Join(Ops, ", ")),
			fmt.Sprintf("Unknown operator: %q (%s)", c.Op, strings.Join(Ops, ", ")))
	}
	r := crule{col: col, op: c.Op}
	switch c.Op {
	case "is_empty", "is_not_empty":
		return r, nil
	case "in", "not_in":
		var members []string
		switch v := c.Value.(type) {
		case []any:
			for _, m := range v {
				members = append(members, valueText(m))
			}
		case string:
			members = strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == ';' })
		default:
			return crule{}, ruleErr(fmt.Sprintf("%s attend une liste de valeurs (colonne %q)", c.Op, c.Column),
				fmt.Sprintf("%s takes a list of values (column %q)", c.Op, c.Column))
		}
		if len(members) > maxRuleValue {
			return crule{}, ruleErr(fmt.Sprintf("Plus de %d valeurs dans une liste", maxRuleValue),
				fmt.Sprintf("More than %d values in a list", maxRuleValue))
		}
		for _, m := range members {
			r.set = append(r.set, fold(m))
			if n, ok := parseNumber(m); ok {
				r.nums = append(r.nums, n)
			}
		}
		return r, nil
	}
	if _, isList := c.Value.([]any); isList || c.Value == nil {
		return crule{}, ruleErr(fmt.Sprintf("%s attend une valeur (colonne %q)", c.Op, c.Column),
			fmt.Sprintf("%s takes one value (column %q)", c.Op, c.Column))
	}
	text := valueText(c.Value)
	if len(text) > maxRuleValue {
		return crule{}, ruleErr("Valeur trop longue", "Value too long")
	}
	r.text = fold(text)
	r.num, r.isN = parseNumber(text)
	return r, nil
}

// Match tells whether a row (aligned with the compiled header) passes.
func (m *Matcher) Match(row []string) bool { return m.root.match(row) }

func (g *cgroup) match(row []string) bool {
	if len(g.rules) == 0 && len(g.subs) == 0 {
		return true // no rule keeps every row
	}
	for i := range g.rules {
		ok := g.rules[i].match(row)
		if g.or && ok {
			return true
		}
		if !g.or && !ok {
			return false
		}
	}
	for _, s := range g.subs {
		ok := s.match(row)
		if g.or && ok {
			return true
		}
		if !g.or && !ok {
			return false
		}
	}
	return !g.or
}

func (r *crule) match(row []string) bool {
	cell := ""
	if r.col < len(row) {
		cell = strings.TrimSpace(row[r.col])
	}
	switch r.op {
	case "is_empty":
		return cell == ""
	case "is_not_empty":
		return cell != ""
	case "in", "not_in":
		in := false
		if n, ok := parseNumber(cell); ok && len(r.nums) > 0 {
			in = slices.Contains(r.nums, n)
		}
		if !in {
			in = slices.Contains(r.set, fold(cell))
		}
		return in == (r.op == "in")
	case "contains":
		return strings.Contains(fold(cell), r.text)
	case "not_contains":
		return !strings.Contains(fold(cell), r.text)
	case "starts_with":
		return strings.HasPrefix(fold(cell), r.text)
	}
	var c int
	if n, ok := parseNumber(cell); ok && r.isN {
		c = cmp.Compare(n, r.num)
	} else {
		if r.op != "=" && r.op != "!=" && cell == "" {
			return false // an empty cell is neither above nor below a value
		}
		c = strings.Compare(fold(cell), r.text)
	}
	switch r.op {
	case "=":
		return c == 0
	case "!=":
		return c != 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	}
	return false
}

// parseNumber reads "4.5", "4,5", " 12 ", "1 234" as numbers; not "12 rue".
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return 0, false
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\u00a0", ""), " ", "")
	if strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f {
		return 0, false
	}
	return f, true
}

// fold is a text's comparison form: trimmed, lower-case, without accents.
func fold(s string) string {
	return accent.Fold(strings.ToLower(strings.TrimSpace(s)))
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
