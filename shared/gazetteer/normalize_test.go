package gazetteer

import "testing"

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Saint-Étienne", "saint etienne"},
		{"ST ETIENNE", "saint etienne"},
		{"st.-étienne", "saint etienne"},
		{"Ste-Foy-lès-Lyon", "sainte foy les lyon"},
		{"L'Haÿ-les-Roses", "l hay les roses"},
		{"Bavière", "baviere"},
		{"Düsseldorf", "dusseldorf"},
		{"Straße", "strasse"},
		{"Œuilly", "oeuilly"},
		{"  Paris   11e ", "paris 11e"},
		{"Łódź", "lodz"},
		{"", ""},
		{"---", ""},
		{"Castelo Branco", "castelo branco"},
		{"Stuttgart", "stuttgart"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
