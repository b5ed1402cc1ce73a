// Package export writes a job's output CSV and derives the other download
// formats from it (spec: "GET /api/jobs/{id}/download", "/items",
// "/output-columns", "POST /api/jobs/parse-list"; DESIGN.md "Work
// execution": CSV is the source of truth, JSON and XLSX are derived,
// streamed, never the whole file in memory).
//
// Decisions the spec leaves open:
//
//   - The stored CSV is UTF-8 with a BOM, ';' between cells (the spec's
//     Exports row) and CRLF at the end of each row: RFC 4180's line ending,
//     and what Excel writes and reads best. A line break inside a cell is
//     kept as it is, inside quotes; encoding/csv reads a CRLF there back as
//     LF.
//   - Every cell, header included, that starts with '=', '+', '-', '@', tab
//     or carriage return, even after leading control characters, whitespace
//     or invisible format characters (a spreadsheet or a tool on the way may
//     drop them: "\x00=1+1" and " =1" are guarded), gets a leading
//     apostrophe in the CSV (OWASP "CSV injection"; the spec: "exports are
//     sanitised against spreadsheet-formula injection"). That is the rule
//     even where it shows: a phone number "+33 4 78 12 34 56" is stored as
//     "'+33 4 78 12 34 56". The one exception is a plain negative number
//     ("-5", "-0.5", "-1,25": a longitude, a change of rating), which a
//     spreadsheet reads as a number and nothing else; "-1+1" is guarded. A
//     cell that already looks guarded ("'=x") gets one more apostrophe, so
//     that Restore undoes the guard exactly.
//   - The guard is the CSV's alone, applied where a spreadsheet could
//     evaluate a cell. The stored CSV is the CSV download (on AWS a
//     presigned GET of the object, which nothing can transform on the way),
//     so it is stored guarded; every other reader undoes the guard with
//     Restore or RestoreBytes: JSON, items and XLSX here, pipelines,
//     imports and a veille's diff. Rows before the CSV (parts, item inputs)
//     are never guarded. docs/files.md "Typed outputs and the formula
//     guard".
//   - JSON, items and XLSX type each cell by its column (coltypes.go, the
//     one table, docs/columns.md): numbers, booleans, dates, lists and JSON
//     values; an empty cell is null (JSON) or absent (XLSX); a column the
//     table does not know, and a cell that does not read as its column's
//     type, stays the string it was (phone numbers and postal codes with a
//     leading zero, 14-digit SIRET numbers are strings). Keys follow the
//     header's order.
//   - XLSX is written here with archive/zip, one sheet streamed row by row:
//     text as inline strings (t="inlineStr", never a formula), numbers as
//     number cells, booleans as t="b", days as serial numbers in a
//     yyyy-mm-dd style; a bold and frozen header row. excelize's
//     StreamWriter was measured first (BenchmarkXLSXExcelize1M): its final
//     save builds the whole zip in a bytes.Buffer (upstream
//     qax-os/excelize#2357), so memory grows with the file: a
//     1,000,000-row export peaked at 246 MiB of heap and 307 MiB resident,
//     over the 256 MiB budget, and it spooled 1.3 GB of sheet XML to the
//     temporary directory (Lambda's default is 512 MB). The writer here
//     peaks at 7 MiB of heap and 19 MiB resident for the same file
//     (BenchmarkXLSX1M). excelize stays a test dependency: the tests open
//     every file written here with it.
//   - Excel's limits: at most 1,048,576 rows (header included) and 32,767
//     characters a cell. Beyond them ToXLSX truncates, finishes a valid file
//     and returns a *TruncatedError (errors.Is ErrTruncated); the CSV and
//     JSON keep everything.
//   - Header names become unique keys (Keys): an unnamed column is
//     "column_<n>" (n its 1-based position), a repeated name gets "_2",
//     "_3"; so items, JSON objects and output columns never lose a column.
//   - A cell is empty for output-columns when it holds only white space.
package export
