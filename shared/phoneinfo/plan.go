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
// "numbering plan (sim)" for phoneinfosim.Plan.
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

// NewMemPlan is an empty plan that names itself source (Source); Add
// fills it. LoadARCEP and LoadStored build the real one.
func NewMemPlan(source string) *MemPlan { return &MemPlan{source: source} }

// Add puts a block of numbers of any length in the plan: prefix (national
// format) to a's operator. A prefix seen before keeps its first
// assignment. Add is a build step: not safe beside Lookup.
func (p *MemPlan) Add(prefix string, a Assignment) { p.add(prefix, block{a: a}) }

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
