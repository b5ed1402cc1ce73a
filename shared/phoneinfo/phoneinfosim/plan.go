package phoneinfosim

import "github.com/prospectdata/svc/shared/phoneinfo"

// simOperators are Plan's operators: one per range kind of the
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

// Plan is the numbering plan of the simulated world: it covers exactly
// the ranges its phone numbers are drawn from (fixed lines 01 to 05 by
// region, mobiles 06 and 07, the overseas departments' fixed lines; see
// shared/provider/sim/phone.go), each assigned to an operator named
// "… (sim)" with no SIRET, address or date. Those numbers are random draws
// in real ranges, so the real plan's operators would be a guess about
// numbers nobody holds: the simulated one says so instead. Numbers outside
// those ranges have no assignment.
func Plan() *phoneinfo.MemPlan {
	p := phoneinfo.NewMemPlan("numbering plan (sim)")
	for _, op := range simOperators {
		for _, prefix := range op.prefixes {
			p.Add(prefix, phoneinfo.Assignment{Mnemonic: op.mnemonic, Name: op.name, Territory: simTerritory(prefix)})
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
