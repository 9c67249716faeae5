// Package render is the one place that turns a report into what people
// read: the plain-text summary that ends perfgate gate, run and compare
// (Terminal), the PR comment (Markdown) and the self-contained page
// (HTML). The packages that compute a report (verdict, results,
// benchtable, attribution) print nothing. Every number goes through the
// metric catalog's formatter (internal/metric/format.go), so a figure
// reads the same in all three and in the verdict's reason.
//
// In the comment and the page every string that came from a profile, a
// service or a config is untrusted (and the whole report.json may be: see
// ReadReport): escape.go escapes it so it can neither break the layout nor
// mention people, link issues, inject HTML or hide text with invisible or
// bidirectional formatting characters. The terminal summary prints the
// report perfgate itself just wrote, as it is.
package render
