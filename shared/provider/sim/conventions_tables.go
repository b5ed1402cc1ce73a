package sim

// The tables of conventions.go: constant data, small on purpose. They
// follow the national numbering and postal plans closely enough to be
// plausible (and valid for libphonenumber), not to the last locality.

// frAreas are the first four digits of a French fixed line by department
// ("04 72": Lyon), the zone following the region (01 Île-de-France, 02
// north-west, 03 north-east, 04 south-east and Corsica's 04 95, 05
// south-west); the overseas departments are frOverseas.
var frAreas = map[string][]string{
	"75": {"01 42", "01 43", "01 44", "01 45", "01 47", "01 53"}, "77": {"01 60", "01 64"}, "78": {"01 30", "01 39"},
	"91": {"01 60", "01 69"}, "92": {"01 41", "01 46", "01 47"}, "93": {"01 48", "01 49"}, "94": {"01 43", "01 45"},
	"95": {"01 30", "01 34", "01 39"},
	"14": {"02 31"}, "50": {"02 33"}, "61": {"02 33"}, "27": {"02 32"}, "76": {"02 35", "02 32"}, "22": {"02 96"},
	"29": {"02 98"}, "35": {"02 99", "02 23"}, "56": {"02 97"}, "44": {"02 40", "02 51", "02 28"}, "49": {"02 41"},
	"53": {"02 43"}, "72": {"02 43"}, "85": {"02 51"}, "18": {"02 48"}, "28": {"02 37"}, "36": {"02 54"},
	"37": {"02 47"}, "41": {"02 54"}, "45": {"02 38"},
	"02": {"03 23"}, "08": {"03 24"}, "10": {"03 25"}, "51": {"03 26"}, "52": {"03 25"}, "54": {"03 83"}, "55": {"03 29"},
	"57": {"03 87"}, "88": {"03 29"}, "59": {"03 20", "03 27", "03 28"}, "62": {"03 21"}, "60": {"03 44"}, "80": {"03 22"},
	"67": {"03 88"}, "68": {"03 89"}, "21": {"03 80"}, "25": {"03 81"}, "39": {"03 84"}, "58": {"03 86"}, "70": {"03 84"},
	"71": {"03 85"}, "89": {"03 86"}, "90": {"03 84"},
	"01": {"04 74", "04 50"}, "03": {"04 70"}, "07": {"04 75"}, "15": {"04 71"}, "26": {"04 75"}, "38": {"04 76", "04 74"},
	"42": {"04 77"}, "43": {"04 71"}, "63": {"04 73"}, "69": {"04 72", "04 78", "04 37"}, "73": {"04 79"}, "74": {"04 50"},
	"04": {"04 92"}, "05": {"04 92"}, "06": {"04 93", "04 92", "04 97"}, "13": {"04 91", "04 42", "04 90"}, "83": {"04 94"},
	"84": {"04 90"}, "2A": {"04 95"}, "2B": {"04 95"}, "11": {"04 68"}, "30": {"04 66"}, "34": {"04 67"}, "48": {"04 66"},
	"66": {"04 68"},
	"16": {"05 45"}, "17": {"05 46"}, "79": {"05 49"}, "86": {"05 49"}, "19": {"05 55"}, "23": {"05 55"}, "87": {"05 55"},
	"24": {"05 53"}, "33": {"05 56", "05 57"}, "40": {"05 58"}, "47": {"05 53"}, "64": {"05 59"}, "09": {"05 61"},
	"12": {"05 65"}, "31": {"05 61", "05 62", "05 34"}, "32": {"05 62"}, "46": {"05 65"}, "65": {"05 62"}, "81": {"05 63"},
	"82": {"05 63"},
}

// frBorder are the foreign numbers a French department's listings may
// carry: those of the countries across its border (a Swiss firm listed in
// Annemasse, a Belgian one in Lille), nowhere else.
var frBorder = map[string][]string{
	"59": {"+32 56 N# ## ##", "+32 69 N# ## ##"}, "02": {"+32 71 N# ## ##"}, "08": {"+32 61 N# ## ##", "+32 71 N# ## ##"},
	"57": {"+352 2N ## ## ##", "+49 681 N######"}, "54": {"+352 2N ## ## ##", "+32 63 N# ## ##"},
	"67": {"+49 7851 N#####", "+49 721 N######"}, "68": {"+41 61 N## ## ##", "+49 761 N######"},
	"01": {"+41 22 N## ## ##"}, "74": {"+41 22 N## ## ##"}, "39": {"+41 22 N## ## ##"}, "25": {"+41 32 N## ## ##"},
	"90": {"+41 32 N## ## ##"}, "06": {"+377 93 ## ## ##", "+39 0184 N#####"}, "73": {"+39 0165 N#####"},
	"64": {"+34 943 N## ###"}, "65": {"+34 974 N## ###"}, "66": {"+34 972 N## ###"}, "31": {"+34 973 N## ###"},
	"09": {"+376 8#####"},
}

// German cities: Vorwahl without the trunk 0, postal code prefixes.
var deCities = []bigCity{
	{name: "Berlin", area: "30", post: []string{"10", "12", "13"}}, {name: "Hamburg", area: "40", post: []string{"20", "21", "22"}},
	{name: "München", area: "89", post: []string{"80", "81"}}, {name: "Köln", area: "221", post: []string{"50", "51"}},
	{name: "Frankfurt am Main", area: "69", post: []string{"603", "604", "605"}}, {name: "Stuttgart", area: "711", post: []string{"70"}},
	{name: "Düsseldorf", area: "211", post: []string{"40"}}, {name: "Leipzig", area: "341", post: []string{"04"}},
	{name: "Dortmund", area: "231", post: []string{"44"}}, {name: "Essen", area: "201", post: []string{"45"}},
	{name: "Bremen", area: "421", post: []string{"28"}}, {name: "Dresden", area: "351", post: []string{"01"}},
	{name: "Hannover", area: "511", post: []string{"30"}}, {name: "Nürnberg", area: "911", post: []string{"90"}},
	{name: "Duisburg", area: "203", post: []string{"47"}}, {name: "Bochum", area: "234", post: []string{"447", "448"}},
	{name: "Wuppertal", area: "202", post: []string{"42"}}, {name: "Bielefeld", area: "521", post: []string{"336", "337"}},
	{name: "Bonn", area: "228", post: []string{"531"}}, {name: "Münster", area: "251", post: []string{"481"}},
	{name: "Mannheim", area: "621", post: []string{"681"}}, {name: "Karlsruhe", area: "721", post: []string{"761"}},
	{name: "Augsburg", area: "821", post: []string{"861"}}, {name: "Wiesbaden", area: "611", post: []string{"651"}},
	{name: "Aachen", area: "241", post: []string{"520"}}, {name: "Kiel", area: "431", post: []string{"241"}},
	{name: "Freiburg im Breisgau", area: "761", post: []string{"791"}}, {name: "Mainz", area: "6131", post: []string{"551"}},
	{name: "Erfurt", area: "361", post: []string{"990"}}, {name: "Rostock", area: "381", post: []string{"180"}},
	{name: "Magdeburg", area: "391", post: []string{"391"}}, {name: "Saarbrücken", area: "681", post: []string{"661"}},
	{name: "Regensburg", area: "941", post: []string{"930"}}, {name: "Würzburg", area: "931", post: []string{"970"}},
	{name: "Potsdam", area: "331", post: []string{"144"}}, {name: "Heidelberg", area: "6221", post: []string{"691"}},
}

// deLand is a German Land's conventions: a fixed area (city states) or
// the leading digits of its towns' four-digit codes; postal prefixes.
type deLand struct {
	area        string
	phone, post []string
}

var deLands = map[string]deLand{
	"DE-BW": {phone: []string{"71", "72", "73", "74", "75", "76", "77", "79"}, post: []string{"71", "72", "73", "74", "75", "77", "78", "88", "89"}},
	"DE-BY": {phone: []string{"81", "82", "83", "84", "85", "86", "87", "88", "91", "92", "93", "94", "95", "96", "97", "98", "60"}, post: []string{"82", "83", "84", "85", "86", "87", "63", "91", "92", "94", "95", "96", "97"}},
	"DE-BE": {area: "30", post: []string{"10", "12", "13"}},
	"DE-BB": {phone: []string{"33"}, post: []string{"14", "15", "16", "19", "03"}},
	"DE-HB": {area: "421", post: []string{"28"}},
	"DE-HE": {phone: []string{"60", "61", "64", "66", "56"}, post: []string{"34", "35", "36", "61", "63", "64", "65"}},
	"DE-HH": {area: "40", post: []string{"20", "21", "22"}},
	"DE-MV": {phone: []string{"38", "39"}, post: []string{"17", "18", "19", "23"}},
	"DE-NI": {phone: []string{"41", "42", "44", "48", "50", "51", "53", "55", "57", "59"}, post: []string{"21", "26", "27", "29", "31", "37", "38", "49"}},
	"DE-NW": {phone: []string{"20", "21", "22", "23", "24", "25", "27", "29", "52", "54"}, post: []string{"32", "33", "41", "42", "46", "48", "50", "52", "53", "57", "58", "59"}},
	"DE-RP": {phone: []string{"26", "63", "65", "67"}, post: []string{"54", "55", "56", "66", "67", "76"}},
	"DE-SH": {phone: []string{"43", "45", "46", "48"}, post: []string{"22", "23", "24", "25"}},
	"DE-SL": {phone: []string{"68"}, post: []string{"66"}},
	"DE-SN": {phone: []string{"34", "35", "37"}, post: []string{"01", "02", "04", "08", "09"}},
	"DE-ST": {phone: []string{"34", "39"}, post: []string{"06", "29", "38", "39"}},
	"DE-TH": {phone: []string{"36"}, post: []string{"07", "36", "37", "98", "99"}},
}

// Spanish provinces (ISO 3166-2): postal prefix (INE code), phone prefix.
type esProvince struct{ post, area string }

var esProvinces = map[string]esProvince{
	"ES-C": {"15", "981"}, "ES-VI": {"01", "945"}, "ES-AB": {"02", "967"}, "ES-A": {"03", "965"}, "ES-AL": {"04", "950"},
	"ES-O": {"33", "985"}, "ES-AV": {"05", "920"}, "ES-BA": {"06", "924"}, "ES-PM": {"07", "971"}, "ES-B": {"08", "93"},
	"ES-BU": {"09", "947"}, "ES-CC": {"10", "927"}, "ES-CA": {"11", "956"}, "ES-S": {"39", "942"}, "ES-CS": {"12", "964"},
	"ES-CR": {"13", "926"}, "ES-CO": {"14", "957"}, "ES-CU": {"16", "969"}, "ES-GI": {"17", "972"}, "ES-GR": {"18", "958"},
	"ES-GU": {"19", "949"}, "ES-SS": {"20", "943"}, "ES-H": {"21", "959"}, "ES-HU": {"22", "974"}, "ES-J": {"23", "953"},
	"ES-LE": {"24", "987"}, "ES-L": {"25", "973"}, "ES-LU": {"27", "982"}, "ES-M": {"28", "91"}, "ES-MA": {"29", "952"},
	"ES-MU": {"30", "968"}, "ES-NA": {"31", "948"}, "ES-OR": {"32", "988"}, "ES-P": {"34", "979"}, "ES-GC": {"35", "928"},
	"ES-PO": {"36", "986"}, "ES-LO": {"26", "941"}, "ES-SA": {"37", "923"}, "ES-TF": {"38", "922"}, "ES-SG": {"40", "921"},
	"ES-SE": {"41", "954"}, "ES-SO": {"42", "975"}, "ES-T": {"43", "977"}, "ES-TE": {"44", "978"}, "ES-TO": {"45", "925"},
	"ES-V": {"46", "96"}, "ES-VA": {"47", "983"}, "ES-BI": {"48", "94"}, "ES-ZA": {"49", "980"}, "ES-Z": {"50", "976"},
	"ES-CE": {"51", "956"}, "ES-ML": {"52", "952"},
}

// esCities are the Spanish cities whose postcodes are a capital's.
var esCities = []bigCity{{name: "Madrid"}, {name: "Barcelona"}, {name: "Valencia"}, {name: "Sevilla"}, {name: "Zaragoza"},
	{name: "Málaga"}, {name: "Bilbao"}, {name: "Murcia"}}

// Italian cities: prefisso (with its 0), CAP prefixes.
var itCities = []bigCity{
	{name: "Roma", area: "06", post: []string{"001"}}, {name: "Milano", area: "02", post: []string{"201"}},
	{name: "Napoli", area: "081", post: []string{"801"}}, {name: "Torino", area: "011", post: []string{"101"}},
	{name: "Palermo", area: "091", post: []string{"901"}}, {name: "Genova", area: "010", post: []string{"161"}},
	{name: "Bologna", area: "051", post: []string{"401"}}, {name: "Firenze", area: "055", post: []string{"501"}},
	{name: "Bari", area: "080", post: []string{"701"}}, {name: "Catania", area: "095", post: []string{"951"}},
	{name: "Venezia", area: "041", post: []string{"301"}}, {name: "Verona", area: "045", post: []string{"371"}},
}

// itRegion is an Italian region's provinces' prefissi and CAP prefixes.
type itRegion struct{ phone, post []string }

var itRegions = map[string]itRegion{
	"IT-21": {[]string{"0131", "0141", "015", "0171", "0321", "0323", "0161"}, []string{"12", "13", "14", "15", "28"}},
	"IT-23": {[]string{"0165"}, []string{"11"}},
	"IT-25": {[]string{"030", "031", "035", "0341", "0371", "0372", "0376", "0382", "0342", "0332", "039"}, []string{"21", "22", "23", "24", "25", "26", "27", "46"}},
	"IT-32": {[]string{"0461", "0471", "0472", "0473", "0474"}, []string{"38", "39"}},
	"IT-34": {[]string{"049", "0422", "0424", "0425", "0437", "0444"}, []string{"31", "32", "35", "36", "45"}},
	"IT-36": {[]string{"040", "0432", "0434", "0481"}, []string{"33", "34"}},
	"IT-42": {[]string{"0183", "0185", "0187", "019"}, []string{"17", "18", "19"}},
	"IT-45": {[]string{"0521", "0522", "0523", "0532", "0541", "0543", "0544", "059"}, []string{"29", "41", "42", "43", "44", "47", "48"}},
	"IT-52": {[]string{"050", "0564", "0565", "0571", "0573", "0574", "0575", "0577", "0583", "0585", "0586"}, []string{"51", "52", "53", "54", "55", "56", "57", "58", "59"}},
	"IT-55": {[]string{"075", "0744", "0742", "0763"}, []string{"05", "06"}},
	"IT-57": {[]string{"071", "0721", "0733", "0734", "0736", "0731"}, []string{"60", "61", "62", "63"}},
	"IT-62": {[]string{"0761", "0746", "0773", "0775", "0771", "0766"}, []string{"01", "02", "03", "04"}},
	"IT-65": {[]string{"085", "0861", "0862", "0871", "0872", "0863"}, []string{"64", "65", "66", "67"}},
	"IT-67": {[]string{"0874", "0865"}, []string{"86"}},
	"IT-72": {[]string{"089", "0823", "0824", "0825", "0828", "0974"}, []string{"81", "82", "83", "84"}},
	"IT-75": {[]string{"0881", "0831", "0832", "099", "0883"}, []string{"71", "72", "73", "74", "76"}},
	"IT-77": {[]string{"0971", "0835", "0973"}, []string{"75", "85"}},
	"IT-78": {[]string{"0961", "0984", "0962", "0963", "0965", "0968"}, []string{"87", "88", "89"}},
	"IT-82": {[]string{"090", "0922", "0931", "0932", "0934", "0923", "0935"}, []string{"92", "93", "94", "96", "97", "98"}},
	"IT-88": {[]string{"070", "079", "0784", "0783", "0789", "0781"}, []string{"07", "08", "09"}},
}

// British cities: dialling code without the trunk 0, postcode areas; the
// region is the nation.
var gbCities = []bigCity{
	{name: "London", region: "GB-ENG", area: "20", post: []string{"E", "N", "NW", "SE", "SW", "W"}},
	{name: "Birmingham", region: "GB-ENG", area: "121", post: []string{"B"}}, {name: "Manchester", region: "GB-ENG", area: "161", post: []string{"M"}},
	{name: "Leeds", region: "GB-ENG", area: "113", post: []string{"LS"}}, {name: "Sheffield", region: "GB-ENG", area: "114", post: []string{"S"}},
	{name: "Nottingham", region: "GB-ENG", area: "115", post: []string{"NG"}}, {name: "Leicester", region: "GB-ENG", area: "116", post: []string{"LE"}},
	{name: "Bristol", region: "GB-ENG", area: "117", post: []string{"BS"}}, {name: "Reading", region: "GB-ENG", area: "118", post: []string{"RG"}},
	{name: "Liverpool", region: "GB-ENG", area: "151", post: []string{"L"}}, {name: "Newcastle upon Tyne", region: "GB-ENG", area: "191", post: []string{"NE"}},
	{name: "Coventry", region: "GB-ENG", area: "24", post: []string{"CV"}}, {name: "Southampton", region: "GB-ENG", area: "23", post: []string{"SO"}},
	{name: "Cambridge", region: "GB-ENG", area: "1223", post: []string{"CB"}}, {name: "Oxford", region: "GB-ENG", area: "1865", post: []string{"OX"}},
	{name: "Brighton", region: "GB-ENG", area: "1273", post: []string{"BN"}}, {name: "Plymouth", region: "GB-ENG", area: "1752", post: []string{"PL"}},
	{name: "Norwich", region: "GB-ENG", area: "1603", post: []string{"NR"}}, {name: "York", region: "GB-ENG", area: "1904", post: []string{"YO"}},
	{name: "Edinburgh", region: "GB-SCT", area: "131", post: []string{"EH"}}, {name: "Glasgow", region: "GB-SCT", area: "141", post: []string{"G"}},
	{name: "Aberdeen", region: "GB-SCT", area: "1224", post: []string{"AB"}}, {name: "Dundee", region: "GB-SCT", area: "1382", post: []string{"DD"}},
	{name: "Cardiff", region: "GB-WLS", area: "29", post: []string{"CF"}}, {name: "Swansea", region: "GB-WLS", area: "1792", post: []string{"SA"}},
	{name: "Belfast", region: "GB-NIR", area: "28", post: []string{"BT"}},
}

// gbTowns are towns with their own four- or five-digit dialling code
// and postcode area: a town of no table takes those of the nearest of
// gbCities and gbTowns in its nation (the exchange it would depend on).
var gbTowns = []bigCity{
	{name: "Bournemouth", region: "GB-ENG", area: "1202", post: []string{"BH"}}, {name: "Cheltenham", region: "GB-ENG", area: "1242", post: []string{"GL"}},
	{name: "Chester", region: "GB-ENG", area: "1244", post: []string{"CH"}}, {name: "Crewe", region: "GB-ENG", area: "1270", post: []string{"CW"}},
	{name: "Burnley", region: "GB-ENG", area: "1282", post: []string{"BB"}}, {name: "Folkestone", region: "GB-ENG", area: "1303", post: []string{"CT"}},
	{name: "Dartford", region: "GB-ENG", area: "1322", post: []string{"DA"}}, {name: "Dudley", region: "GB-ENG", area: "1384", post: []string{"DY"}},
	{name: "Exeter", region: "GB-ENG", area: "1392", post: []string{"EX"}}, {name: "Halifax", region: "GB-ENG", area: "1422", post: []string{"HX"}},
	{name: "Harrogate", region: "GB-ENG", area: "1423", post: []string{"HG"}}, {name: "Gloucester", region: "GB-ENG", area: "1452", post: []string{"GL"}},
	{name: "Ipswich", region: "GB-ENG", area: "1473", post: []string{"IP"}}, {name: "Huddersfield", region: "GB-ENG", area: "1484", post: []string{"HD"}},
	{name: "Lincoln", region: "GB-ENG", area: "1522", post: []string{"LN"}}, {name: "Lancaster", region: "GB-ENG", area: "1524", post: []string{"LA"}},
	{name: "Northampton", region: "GB-ENG", area: "1604", post: []string{"NN"}}, {name: "Mansfield", region: "GB-ENG", area: "1623", post: []string{"NG"}},
	{name: "Middlesbrough", region: "GB-ENG", area: "1642", post: []string{"TS"}}, {name: "Southend-on-Sea", region: "GB-ENG", area: "1702", post: []string{"SS"}},
	{name: "Scarborough", region: "GB-ENG", area: "1723", post: []string{"YO"}}, {name: "Peterborough", region: "GB-ENG", area: "1733", post: []string{"PE"}},
	{name: "Shrewsbury", region: "GB-ENG", area: "1743", post: []string{"SY"}}, {name: "Preston", region: "GB-ENG", area: "1772", post: []string{"PR"}},
	{name: "Swindon", region: "GB-ENG", area: "1793", post: []string{"SN"}}, {name: "Torquay", region: "GB-ENG", area: "1803", post: []string{"TQ"}},
	{name: "Taunton", region: "GB-ENG", area: "1823", post: []string{"TA"}}, {name: "Wolverhampton", region: "GB-ENG", area: "1902", post: []string{"WV"}},
	{name: "Worcester", region: "GB-ENG", area: "1905", post: []string{"WR"}}, {name: "Milton Keynes", region: "GB-ENG", area: "1908", post: []string{"MK"}},
	{name: "Wakefield", region: "GB-ENG", area: "1924", post: []string{"WF"}}, {name: "Wigan", region: "GB-ENG", area: "1942", post: []string{"WN"}},
	{name: "Winchester", region: "GB-ENG", area: "1962", post: []string{"SO"}}, {name: "Carlisle", region: "GB-ENG", area: "1228", post: []string{"CA"}},
	{name: "Ayr", region: "GB-SCT", area: "1292", post: []string{"KA"}}, {name: "Falkirk", region: "GB-SCT", area: "1324", post: []string{"FK"}},
	{name: "Dunfermline", region: "GB-SCT", area: "1383", post: []string{"KY"}}, {name: "Inverness", region: "GB-SCT", area: "1463", post: []string{"IV"}},
	{name: "Kirkcaldy", region: "GB-SCT", area: "1592", post: []string{"KY"}}, {name: "Motherwell", region: "GB-SCT", area: "1698", post: []string{"ML"}},
	{name: "Perth", region: "GB-SCT", area: "1738", post: []string{"PH"}}, {name: "Stirling", region: "GB-SCT", area: "1786", post: []string{"FK"}},
	{name: "Bangor", region: "GB-WLS", area: "1248", post: []string{"LL"}}, {name: "Carmarthen", region: "GB-WLS", area: "1267", post: []string{"SA"}},
	{name: "Newport", region: "GB-WLS", area: "1633", post: []string{"NP"}}, {name: "Bridgend", region: "GB-WLS", area: "1656", post: []string{"CF"}},
	{name: "Aberystwyth", region: "GB-WLS", area: "1970", post: []string{"SY"}}, {name: "Wrexham", region: "GB-WLS", area: "1978", post: []string{"LL"}},
}

// US cities: area code, ZIP prefixes; the region is the state.
var usCities = []bigCity{
	{name: "New York City", town: "New York", region: "US-NY", area: "212", post: []string{"100"}}, {name: "Los Angeles", region: "US-CA", area: "213", post: []string{"900"}},
	{name: "Chicago", region: "US-IL", area: "312", post: []string{"606"}}, {name: "Houston", region: "US-TX", area: "713", post: []string{"770"}},
	{name: "Phoenix", region: "US-AZ", area: "602", post: []string{"850"}}, {name: "Philadelphia", region: "US-PA", area: "215", post: []string{"191"}},
	{name: "San Antonio", region: "US-TX", area: "210", post: []string{"782"}}, {name: "San Diego", region: "US-CA", area: "619", post: []string{"921"}},
	{name: "Dallas", region: "US-TX", area: "214", post: []string{"752"}}, {name: "San Francisco", region: "US-CA", area: "415", post: []string{"941"}},
	{name: "Seattle", region: "US-WA", area: "206", post: []string{"981"}}, {name: "Boston", region: "US-MA", area: "617", post: []string{"021"}},
	{name: "Miami", region: "US-FL", area: "305", post: []string{"331"}}, {name: "Atlanta", region: "US-GA", area: "404", post: []string{"303"}},
	{name: "Denver", region: "US-CO", area: "303", post: []string{"802"}}, {name: "Springfield", region: "US-IL", area: "217", post: []string{"627"}},
}

// usState is a state's area codes and three-digit ZIP prefixes.
type usState struct{ areas, zips []string }

var usStates = map[string]usState{
	"US-AL": {[]string{"205", "256", "334"}, []string{"350", "352", "358", "360", "366"}}, "US-AK": {[]string{"907"}, []string{"995", "996"}},
	"US-AZ": {[]string{"480", "520", "623"}, []string{"852", "853", "857"}}, "US-AR": {[]string{"479", "501", "870"}, []string{"716", "720", "727"}},
	"US-CA": {[]string{"408", "510", "559", "626", "714", "818", "916"}, []string{"902", "906", "917", "935", "945", "956"}},
	"US-CO": {[]string{"719", "720", "970"}, []string{"800", "805", "809", "815"}}, "US-CT": {[]string{"203", "860"}, []string{"060", "064", "068"}},
	"US-DE": {[]string{"302"}, []string{"197", "199"}}, "US-DC": {[]string{"202"}, []string{"200"}},
	"US-FL": {[]string{"239", "321", "407", "727", "813", "904", "954"}, []string{"320", "327", "334", "336", "339"}},
	"US-GA": {[]string{"229", "478", "706", "770", "912"}, []string{"300", "305", "310", "314", "317"}},
	"US-HI": {[]string{"808"}, []string{"967", "968"}}, "US-ID": {[]string{"208"}, []string{"832", "836", "838"}},
	"US-IL": {[]string{"217", "309", "618", "630", "815", "847"}, []string{"600", "601", "610", "616", "618", "625"}},
	"US-IN": {[]string{"219", "260", "317", "574", "812"}, []string{"460", "463", "468", "474", "478"}},
	"US-IA": {[]string{"319", "515", "563", "712"}, []string{"500", "503", "510", "522"}}, "US-KS": {[]string{"316", "620", "785", "913"}, []string{"660", "664", "672", "676"}},
	"US-KY": {[]string{"270", "502", "606", "859"}, []string{"400", "405", "415", "420"}}, "US-LA": {[]string{"225", "318", "337", "504"}, []string{"700", "705", "708", "711"}},
	"US-ME": {[]string{"207"}, []string{"040", "042", "045"}}, "US-MD": {[]string{"240", "301", "410", "443"}, []string{"206", "208", "210", "217"}},
	"US-MA": {[]string{"413", "508", "781", "978"}, []string{"010", "016", "018", "020", "027"}},
	"US-MI": {[]string{"231", "248", "313", "517", "616", "734", "810", "989"}, []string{"480", "482", "488", "494", "497"}},
	"US-MN": {[]string{"218", "507", "612", "651", "763"}, []string{"550", "553", "559", "563"}}, "US-MS": {[]string{"228", "601", "662"}, []string{"386", "390", "395"}},
	"US-MO": {[]string{"314", "417", "573", "636", "816"}, []string{"630", "640", "650", "656"}}, "US-MT": {[]string{"406"}, []string{"590", "594", "598"}},
	"US-NE": {[]string{"308", "402"}, []string{"680", "685", "688"}}, "US-NV": {[]string{"702", "775"}, []string{"889", "891", "895"}},
	"US-NH": {[]string{"603"}, []string{"030", "033", "038"}}, "US-NJ": {[]string{"201", "609", "732", "856", "908", "973"}, []string{"070", "075", "080", "085", "088"}},
	"US-NM": {[]string{"505", "575"}, []string{"870", "875", "880"}},
	"US-NY": {[]string{"315", "516", "518", "585", "607", "631", "716", "845", "914"}, []string{"105", "110", "117", "120", "130", "142", "146"}},
	"US-NC": {[]string{"252", "336", "704", "828", "910", "919"}, []string{"270", "275", "280", "283", "287"}}, "US-ND": {[]string{"701"}, []string{"580", "585"}},
	"US-OH": {[]string{"216", "330", "419", "513", "614", "740", "937"}, []string{"430", "440", "443", "452", "456"}},
	"US-OK": {[]string{"405", "580", "918"}, []string{"730", "740", "745"}}, "US-OR": {[]string{"503", "541", "971"}, []string{"970", "973", "977"}},
	"US-PA": {[]string{"412", "484", "570", "610", "717", "724", "814"}, []string{"150", "160", "170", "180", "186"}},
	"US-RI": {[]string{"401"}, []string{"028", "029"}}, "US-SC": {[]string{"803", "843", "864"}, []string{"290", "294", "296"}},
	"US-SD": {[]string{"605"}, []string{"570", "577"}}, "US-TN": {[]string{"423", "615", "731", "865", "901", "931"}, []string{"370", "374", "377", "381", "384"}},
	"US-TX": {[]string{"254", "281", "325", "361", "409", "432", "512", "806", "817", "903", "915", "940", "956", "972"}, []string{"750", "760", "765", "773", "779", "786", "790", "797"}},
	"US-UT": {[]string{"385", "435", "801"}, []string{"840", "843", "847"}}, "US-VT": {[]string{"802"}, []string{"050", "054", "056"}},
	"US-VA": {[]string{"276", "434", "540", "703", "757", "804"}, []string{"220", "226", "230", "234", "240"}},
	"US-WA": {[]string{"253", "360", "425", "509"}, []string{"980", "983", "985", "988", "992"}}, "US-WV": {[]string{"304", "681"}, []string{"247", "253", "260"}},
	"US-WI": {[]string{"262", "414", "608", "715", "920"}, []string{"530", "535", "541", "545"}}, "US-WY": {[]string{"307"}, []string{"820", "826", "829"}},
}
