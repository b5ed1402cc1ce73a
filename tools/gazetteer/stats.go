package main

import (
	"fmt"
	"io"
	"sort"
)

// stats counts what the report prints, in first-counted order.
type stats struct {
	n       map[string]int
	order   []string
	details map[string][]string // printed with -v
	notes   []string            // printed first, whole sentences
}

// note records a sentence the report prints before the counts.
func (s *stats) note(sentence string) { s.notes = append(s.notes, sentence) }

func newStats() *stats { return &stats{n: map[string]int{}, details: map[string][]string{}} }

func (s *stats) detail(what, item string) { s.details[what] = append(s.details[what], item) }

func (s *stats) count(what string, k int) {
	if _, ok := s.n[what]; !ok {
		s.order = append(s.order, what)
	}
	s.n[what] += k
}

func (s *stats) print(w io.Writer, verbose bool) {
	for _, n := range s.notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	keys := append([]string(nil), s.order...)
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %7d  %s\n", s.n[k], k)
	}
	if !verbose {
		return
	}
	keys = keys[:0]
	for k := range s.details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%s:\n", k)
		for _, item := range s.details[k] {
			fmt.Fprintf(w, "  %s\n", item)
		}
	}
}
