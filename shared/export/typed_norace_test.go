//go:build !race

package export

// typedRows is the size of TestTypedOutputs100k: the 100,000-row
// job.
const typedRows = 100_000
