package verify

import "testing"

// LabChecker is a checker over the test lab's DNS and mail servers, for
// the tests of the package's users' side (enrich.VerifyModule).
func LabChecker(t *testing.T, o Options) *Checker {
	c, _ := newLab(t).checker(o)
	return c
}
