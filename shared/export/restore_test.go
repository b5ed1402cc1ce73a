package export

import "testing"

// TestRestoreBytes: the bytes form undoes the guard exactly as Restore
// does, past leading control and space characters too.
func TestRestoreBytes(t *testing.T) {
	for _, raw := range []string{"=1+1", "\x00=1+1", " =1", "+33 4 72", "-1+1", "-0.5", "@x", "\tx", "abc", "'abc", "", "'"} {
		cell := Neutralise(raw)
		if got, want := string(RestoreBytes([]byte(cell))), Restore(cell); got != want {
			t.Errorf("RestoreBytes(%q) = %q, Restore %q", cell, got, want)
		}
		if got := Restore(cell); got != raw {
			t.Errorf("Restore(Neutralise(%q)) = %q", raw, got)
		}
	}
}
