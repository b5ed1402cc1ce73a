//go:build race

package export

// typedRows is smaller under the race detector, which makes the parsing
// ten times slower; the plain run checks the 100,000 rows.
const typedRows = 10_000
