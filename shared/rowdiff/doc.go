// Package rowdiff compares two output CSVs of a veille, the previous run's
// and the current one's, row by row (spec "Veille run": new, removed,
// modified, unchanged), collects the run's samples and derives the
// reputation signals (spec "Reputation signal") and their files. It reads
// the stored CSVs of shared/export and knows nothing of jobs, tables or
// schedules; docs/veille-diff.md says the same with the figures.
//
// Decisions the spec leaves open:
//
//   - A row's identity (Key) is its place_id ("id:…"); without one, its
//     normalised name and address ("na:…"); without those, its phone digits
//     ("tel:…"); without any, a hash of its content ("h:…"). A key repeated
//     within one output keeps its first row; the others are counted
//     (Counts.Duplicates) and take no part in the diff.
//   - A key present in both outputs is modified when one of the tracked
//     fields (TrackedFields: nom, adresse, telephone, site_web, rating,
//     reviews_count, category), present in both headers, differs: text as
//     a value (formula guard undone, surrounding white space trimmed),
//     rating as a number ("4.30" == "4,3"), reviews_count as an integer
//     ("0120" == "1 20" == "120"). Other columns (lien_maps, query, zone,
//     enrichment columns) do not make a row modified.
//   - Memory is bounded whatever the inputs' sizes. The previous output's
//     rows go into a hash table of at most Options.MemBytes (64 MiB by
//     default, records and slot array counted); the current output streams
//     past it. When the table would outgrow its budget, what it holds and
//     what is left of both inputs are spread by key hash over 16 partition
//     files per input in Options.TempDir, then diffed one partition at a
//     time with the same table (a partition still too big is split again
//     on the next bits of the hash). Beyond the table, Diff holds 2 MiB of
//     partition write buffers while a level is written, 64 KiB read buffers
//     per open input or partition, and its inputs' longest record (at most
//     MaxRecordBytes, 4 MiB). With Go's default GOGC the heap in use peaks
//     near twice the live memory: about 130 MiB at the default budget
//     (BenchmarkDiff1M). Partition files are deleted as soon as their
//     partition is diffed, and all of them before Diff returns.
//   - emit sees new, modified and unchanged keys in the current output's
//     order, then removed keys in the previous output's order; when the
//     inputs are partitioned, that holds within each partition. Samples do
//     not depend on that order: each bucket keeps the smallest keys (byte
//     order), DefaultSampleCap (20) of them unless told otherwise.
//   - A modified row is a signal when its rating dropped by at least 0.2
//     (ratings read as integer hundredths, so 4.5 → 4.3 is exactly 0.2) or
//     its review count grew by at least 3. Its score is 10 × the drop in
//     points plus a review boost below 0.9 (see score), so a drop larger by
//     0.1 point or more always ranks first; SortSignals breaks ties on the
//     drop, the growth, then the text fields.
//   - Signal files: the CSV goes through export.NewCSV (BOM, ';', formula
//     guard), the XLSX is export.ToXLSX of that CSV (the guard undone,
//     notes, counts and score as number cells by export's column table),
//     the JSON an array of Signal objects; numbers use '.' as the decimal
//     mark.
//
// The reader is not encoding/csv: it reads what export.ReadCSV reads,
// refuses what it refuses (tests hold them together, FuzzSplit included),
// and hands records out as the file's bytes, which the diff stores and
// compares whole, splitting a row only for the cells it needs.
package rowdiff
