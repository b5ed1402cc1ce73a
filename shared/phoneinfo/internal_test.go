package phoneinfo

import "testing"

func TestSIRET(t *testing.T) {
	for in, want := range map[string]string{
		"380129866 48625": "38012986648625", "43794766600131": "43794766600131", "793396201": "",
		"": "", "B269908 Luxembourg": "", "838 435 816 00015": "83843581600015", "1234567890123X": "",
	} {
		if got := siret(in); got != want {
			t.Errorf("siret(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestISODate(t *testing.T) {
	for in, want := range map[string]string{
		"27/07/2001": "2001-07-27", "27/07/2001 00:00:00": "2001-07-27", "2001-07-27": "2001-07-27",
		"": "", "7/7/2001": "", "2001": "", "aa/bb/cccc": "",
	} {
		if got := isoDate(in); got != want {
			t.Errorf("isoDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHeaderKey(t *testing.T) {
	for in, want := range map[string]string{
		"Mnémo": "MNEMO", "MNEMO": "MNEMO", "Mn\uFFFDmo": "MNEMO", "Mn?mo": "MNEMO", " Tranche_Debut ": "TRANCHEDEBUT",
		"DATE_DECLARATION_OPERATEUR": "DATEDECLARATIONOPERATEUR", "\ufeffEZABPQM": "EZABPQM",
	} {
		if got := headerKey(in); got != want {
			t.Errorf("headerKey(%q) = %q, want %q", in, got, want)
		}
	}
}
