package sim

import "strings"

// Phone mix of a listing (France-style figures, used everywhere):
const (
	phoneMissing = 0.08 // no phone on the listing
	phoneForeign = 0.03 // a number of another country (a cross-border business)
	phoneMobile  = 0.15 // of the national numbers, a mobile (06, 07)
	// phoneShared is the chance that a block of three consecutive places
	// of a batch shares one line (a franchise's or group's central
	// number): each of its listings with a national number gets it.
	phoneShared = 0.08
	sharedBlock = 3
)

// Phone patterns: '#' any digit, 'P' 1-9, 'N' 2-9, 'M' a digit that may
// follow a French mobile's 6 (0-2, 4-8), 'S' 3-9, 'Q' 1-8 and 'R' 1-9
// but 6 (02 6x and 05 9x are overseas ranges); other characters are
// copied. They follow the numbering plans closely enough that
// libphonenumber finds the numbers valid.
var (
	// frArea is the first digits of a French fixed line by department
	// (01 Île-de-France, 02 north-west, 03 north-east, 04 south-east and
	// Corsica, 05 south-west; overseas departments their own).
	frArea = map[string]string{
		"75": "01", "77": "01", "78": "01", "91": "01", "92": "01", "93": "01", "94": "01", "95": "01",
		"14": "02", "18": "02", "22": "02", "27": "02", "28": "02", "29": "02", "35": "02", "36": "02", "37": "02",
		"41": "02", "44": "02", "45": "02", "49": "02", "50": "02", "53": "02", "56": "02", "61": "02", "72": "02",
		"76": "02", "85": "02",
		"02": "03", "08": "03", "10": "03", "21": "03", "25": "03", "39": "03", "51": "03", "52": "03", "54": "03",
		"55": "03", "57": "03", "58": "03", "59": "03", "60": "03", "62": "03", "67": "03", "68": "03", "70": "03",
		"71": "03", "80": "03", "88": "03", "89": "03", "90": "03",
		"09": "05", "12": "05", "16": "05", "17": "05", "19": "05", "23": "05", "24": "05", "31": "05", "32": "05",
		"33": "05", "40": "05", "46": "05", "47": "05", "64": "05", "65": "05", "79": "05", "81": "05", "82": "05",
		"86": "05", "87": "05",
	}
	// frOverseas are the fixed-line patterns of the overseas departments.
	frOverseas = map[string]string{
		"971": "0590 8# ## ##", "972": "0596 6# ## ##", "973": "0594 3# ## ##",
		"974": "0262 2# ## ##", "976": "0269 6# ## ##",
	}
	// nationalPhones are the fixed-line patterns of places outside France,
	// in international format. A country missing here gets no phones.
	nationalPhones = map[string][]string{
		"DEU": {"+49 30 N#######", "+49 40 N#######", "+49 89 N#######", "+49 221 N######", "+49 69 N#######"},
		"BEL": {"+32 2 5## ## ##", "+32 4 2## ## ##", "+32 9 2## ## ##"},
		"CHE": {"+41 22 N## ## ##", "+41 21 N## ## ##", "+41 44 N## ## ##"},
		"LUX": {"+352 2N ## ## ##"},
		"ESP": {"+34 91N ## ## ##", "+34 93N ## ## ##", "+34 95N ## ## ##"},
		"ITA": {"+39 06 N### ####", "+39 02 N### ####", "+39 011 N## ####"},
		"GBR": {"+44 20 7### ####", "+44 161 N## ####", "+44 121 4## ####"},
		"NLD": {"+31 20 N## ####", "+31 10 N## ####"},
		"AUT": {"+43 1 N######"},
		"PRT": {"+351 21N ### ###", "+351 22N ### ###"},
		"IRL": {"+353 1 N## ####"},
		"POL": {"+48 22 N## ## ##", "+48 12 N## ## ##"},
		"USA": {"+1 212-N##-####", "+1 415-N##-####", "+1 312-N##-####", "+1 713-N##-####"},
		"CAN": {"+1 416-N##-####", "+1 514-N##-####", "+1 604-N##-####"},
		"MCO": {"+377 93 ## ## ##"},
		"AUS": {"+61 2 9### ####", "+61 3 9### ####"},
		"BRA": {"+55 11 3###-####", "+55 21 2###-####"},
		"JPN": {"+81 3-N###-####", "+81 6-N###-####"},
	}
	// foreignPhones are the numbers of French listings from across the
	// border: Switzerland, Belgium and Luxembourg first.
	foreignPhones = []string{
		"+41 22 N## ## ##", "+41 22 N## ## ##", "+32 2 5## ## ##", "+32 2 5## ## ##", "+352 2N ## ## ##",
		"+49 30 N#######", "+34 91N ## ## ##", "+39 06 N### ####", "+44 20 7### ####",
	}
)

// fill replaces the pattern's digit placeholders with random digits.
func fill(r *rng, pattern string) string {
	var b strings.Builder
	for _, c := range pattern {
		switch c {
		case '#':
			b.WriteByte(byte('0' + r.intn(10)))
		case 'P':
			b.WriteByte(byte('1' + r.intn(9)))
		case 'N':
			b.WriteByte(byte('2' + r.intn(8)))
		case 'S':
			b.WriteByte(byte('3' + r.intn(7)))
		case 'M':
			b.WriteByte("0124578"[r.intn(7)])
		case 'Q':
			b.WriteByte(byte('1' + r.intn(8)))
		case 'R':
			b.WriteByte("12345789"[r.intn(8)])
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// nationalPhone draws a number of the settlement's country: for France a
// fixed line of the department's area (or a mobile), in national format.
func nationalPhone(r *rng, s *settlement, mobile bool) string {
	if s.country != "FRA" {
		ps := nationalPhones[s.country]
		if len(ps) == 0 {
			return ""
		}
		return fill(r, pick(r, ps))
	}
	if mobile {
		if r.chance(0.7) {
			return fill(r, "06 M# ## ## ##")
		}
		return fill(r, "07 S# ## ## ##")
	}
	dept := department(s.code)
	if p, ok := frOverseas[dept]; ok {
		return fill(r, p)
	}
	area, ok := frArea[dept]
	if !ok {
		area = "04"
	}
	second := map[string]string{"02": "R", "05": "Q"}[area]
	if second == "" {
		second = "P"
	}
	return fill(r, area+" "+second+"# ## ## ##")
}

// department is the French department of a commune or arrondissement
// code ("69123", "75101" → "69", "75"; "97411" → "974").
func department(c string) string {
	if strings.HasPrefix(c, "97") && len(c) >= 3 {
		return c[:3]
	}
	if len(c) >= 2 {
		return strings.ToUpper(c[:2])
	}
	return c
}
