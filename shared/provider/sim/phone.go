package sim

import "strings"

// Phone mix of a listing (France-style figures, used everywhere):
const (
	phoneMissing = 0.08 // no phone on the listing
	// phoneForeign is the share of the listings of a French border
	// department with a number of the country across the border (a
	// cross-border business, frBorder); elsewhere there are none.
	phoneForeign = 0.08
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
	// frOverseas are the fixed-line patterns of the overseas departments.
	frOverseas = map[string]string{
		"971": "0590 8# ## ##", "972": "0596 6# ## ##", "973": "0594 3# ## ##",
		"974": "0262 2# ## ##", "976": "0269 6# ## ##",
	}
	// nationalPhones are the fixed-line patterns of the countries without
	// tables (conventions.go), in international format: each commune takes
	// one of them. A country missing here and there gets no phones.
	nationalPhones = map[string][]string{
		"BEL": {"+32 2 5## ## ##", "+32 4 2## ## ##", "+32 9 2## ## ##"},
		"CHE": {"+41 22 N## ## ##", "+41 21 N## ## ##", "+41 44 N## ## ##"},
		"LUX": {"+352 2N ## ## ##"},
		"NLD": {"+31 20 N## ####", "+31 10 N## ####"},
		"AUT": {"+43 1 N######"},
		"PRT": {"+351 21N ### ###", "+351 22N ### ###"},
		"IRL": {"+353 1 N## ####"},
		"POL": {"+48 22 N## ## ##", "+48 12 N## ## ##"},
		"CAN": {"+1 416-N##-####", "+1 514-N##-####", "+1 604-N##-####"},
		"MCO": {"+377 93 ## ## ##"},
		"AUS": {"+61 2 9### ####", "+61 3 9### ####"},
		"BRA": {"+55 11 3###-####", "+55 21 2###-####"},
		"JPN": {"+81 3-N###-####", "+81 6-N###-####"},
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

// nationalPhone draws a number of a commune's conventions: in France a
// fixed line of the department's area (or a mobile), in national format;
// elsewhere a fixed line of the commune's area, in international format
// ("" for a country without tables or patterns).
func nationalPhone(r *rng, c *localConv, mobile bool) string {
	if c.country == "FRA" && mobile {
		if r.chance(0.7) {
			return fill(r, "06 M# ## ## ##")
		}
		return fill(r, "07 S# ## ## ##")
	}
	if len(c.patterns) > 0 {
		return fill(r, pick(r, c.patterns))
	}
	if len(c.areas) == 0 {
		return ""
	}
	area := pick(r, c.areas)
	switch c.country {
	case "FRA":
		return fill(r, area+" ## ## ##")
	case "DEU": // "+49 89 12345678": ten digits after the 0
		a := area[1:]
		return "+49 " + a + " " + fill(r, "N"+strings.Repeat("#", 9-len(a)))
	case "ESP": // nine digits, "+34 912 34 56 78"
		d := area + fill(r, "N"+strings.Repeat("#", 8-len(area)))
		return "+34 " + d[:3] + " " + d[3:5] + " " + d[5:7] + " " + d[7:]
	case "ITA": // "+39 02 1234 5678", "+39 0331 123456"
		sub := fill(r, "N"+strings.Repeat("#", 9-len(area)))
		return "+39 " + area + " " + sub
	case "GBR":
		a := area[1:]
		first := map[string]string{"20": "378", "23": "8", "24": "7", "28": "9", "29": "2"}[a]
		switch {
		case first != "":
		case len(a) == 3: // 0113, 0121, …: numbers begin 2 to 4
			first = "234"
		default:
			first = "23456789"
		}
		sub := string(first[r.intn(len(first))]) + fill(r, strings.Repeat("#", 9-len(a)))
		if len(a) == 2 {
			return "+44 " + a + " " + sub[:4] + " " + sub[4:]
		}
		return "+44 " + a + " " + sub
	case "USA":
		return "+1 " + area + "-" + fill(r, "N##-####")
	}
	return ""
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
