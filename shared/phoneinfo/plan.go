package phoneinfo

// Assignment is what a numbering plan says of the block a number falls in:
// the operator the regulator assigned it to. It says nothing of porting: a
// number keeps its block's operator here after its holder moves it to
// another one.
type Assignment struct {
	// Block is the block's prefix in national format (ARCEP's EZABPQM:
	// "014816", "0695").
	Block string
	// Mnemonic is the operator's code ("FRTE", "SFR0", "BOUY").
	Mnemonic string
	// Name is the operator's name ("Orange", "Bouygues Telecom"), "" when
	// the operators' list does not have the mnemonic.
	Name string
	// SIRET is the operator's SIRET (14 digits), "" when the list gives
	// none (a foreign operator) or not a 14-digit one.
	SIRET string
	// Address is the operator's registered address as the list gives it.
	Address string
	// RegisteredSince is the date (YYYY-MM-DD) the operator declared
	// itself to the regulator, "" when unknown.
	RegisteredSince string
	// AssignedOn is the date (YYYY-MM-DD) of the block's assignment to the
	// operator, "" when unknown.
	AssignedOn string
	// Territory is the block's territory as the plan names it
	// ("Métropole", "Martinique", "National").
	Territory string
}

// Operator is the name on a number's row: the operator's name, or its
// mnemonic when the list does not name it.
func (a Assignment) Operator() string {
	if a.Name != "" {
		return a.Name
	}
	return a.Mnemonic
}

// Plan is the numbering-plan port: the operator a number's block is
// assigned to.
type Plan interface {
	// Lookup returns the assignment of the longest block prefix of the
	// number that holds it. national is the number as dialled in France:
	// "0" then its national significant number, digits only
	// ("0148162345"; a Martinique mobile +596 696 00 12 34 is
	// "0696001234"). ok is false when no block holds the number.
	Lookup(national string) (a Assignment, ok bool)
}

// MemPlan is an in-memory numbering plan: block prefixes to assignments,
// looked up longest prefix first. It is safe for concurrent reads once
// built.
type MemPlan struct {
	blocks map[string]block
	maxLen int
	source string
}

type block struct {
	a Assignment
	// first and last bound the block's numbers (ARCEP's Tranche_Debut and
	// Tranche_Fin), "" when the plan gives none. A number of another
	// length is not in the block: 0700000 is a block of 14-digit numbers.
	first, last string
	op          string // upper-case mnemonic, key of the operators
}

// Source names the plan as a job shows it: "ARCEP numbering plan", or
// "numbering plan (sim)" for SimPlan.
func (p *MemPlan) Source() string { return p.source }

// Len is the number of blocks.
func (p *MemPlan) Len() int { return len(p.blocks) }

// Lookup implements Plan.
func (p *MemPlan) Lookup(national string) (Assignment, bool) {
	if p == nil || !digits(national) {
		return Assignment{}, false
	}
	for l := min(len(national), p.maxLen); l > 0; l-- {
		b, ok := p.blocks[national[:l]]
		if !ok {
			continue
		}
		if b.first != "" && (len(national) != len(b.first) || national < b.first || national > b.last) {
			continue
		}
		return b.a, true
	}
	return Assignment{}, false
}

// add puts a block in the plan; a prefix seen before keeps its first
// assignment.
func (p *MemPlan) add(prefix string, b block) {
	if p.blocks == nil {
		p.blocks = map[string]block{}
	}
	if _, dup := p.blocks[prefix]; dup {
		return
	}
	b.a.Block = prefix
	p.blocks[prefix] = b
	p.maxLen = max(p.maxLen, len(prefix))
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// simOperators are SimPlan's operators: one per range kind of the
// simulated world's phone numbers (shared/provider/sim/phone.go).
var simOperators = []struct {
	mnemonic, name string
	prefixes       []string
}{
	{"SIM1", "Opérateur fixe Île-de-France (sim)", []string{"011", "012", "013", "014", "015", "016", "017", "018", "019"}},
	{"SIM2", "Opérateur fixe Nord-Ouest (sim)", []string{"021", "022", "023", "024", "025", "027", "028", "029"}},
	{"SIM3", "Opérateur fixe Nord-Est (sim)", []string{"031", "032", "033", "034", "035", "036", "037", "038", "039"}},
	{"SIM4", "Opérateur fixe Sud-Est (sim)", []string{"041", "042", "043", "044", "045", "046", "047", "048", "049"}},
	{"SIM5", "Opérateur fixe Sud-Ouest (sim)", []string{"051", "052", "053", "054", "055", "056", "057", "058"}},
	{"SIMM", "Opérateur mobile 06 (sim)", []string{"060", "061", "062", "064", "065", "067", "068"}},
	{"SIMN", "Opérateur mobile 07 (sim)", []string{"073", "074", "075", "076", "077", "078", "079"}},
	{"SIMO", "Opérateur fixe outre-mer (sim)", []string{"05908", "05966", "05943", "02622", "02696"}},
}

// SimPlan is the numbering plan of the simulated world: it covers exactly
// the ranges its phone numbers are drawn from (fixed lines 01 to 05 by
// region, mobiles 06 and 07, the overseas departments' fixed lines; see
// shared/provider/sim/phone.go), each assigned to an operator named
// "… (sim)" with no SIRET, address or date. Those numbers are random draws
// in real ranges, so the real plan's operators would be a guess about
// numbers nobody holds: the simulated one says so instead. Numbers outside
// those ranges have no assignment.
func SimPlan() *MemPlan {
	p := &MemPlan{source: "numbering plan (sim)"}
	for _, op := range simOperators {
		for _, prefix := range op.prefixes {
			p.add(prefix, block{a: Assignment{Mnemonic: op.mnemonic, Name: op.name, Territory: simTerritory(prefix)}})
		}
	}
	return p
}

func simTerritory(prefix string) string {
	switch prefix {
	case "05908":
		return "Guadeloupe (sim)"
	case "05966":
		return "Martinique (sim)"
	case "05943":
		return "Guyane (sim)"
	case "02622":
		return "La Réunion (sim)"
	case "02696":
		return "Mayotte (sim)"
	}
	return "Métropole (sim)"
}
