package parser

import (
	"strings"
	"testing"
)

// FuzzBlocks checks that no document makes Blocks panic, and that every
// result keeps the invariants of checkDocument: lines in range, errors in
// order, no RUN block from inside a WRITE or SEARCH block. The seeds are
// the table-test inputs.
func FuzzBlocks(f *testing.F) {
	for _, tt := range blocksCases {
		f.Add(tt.in)
	}
	f.Add("<---WRITE--->\r<---RUN--->\rls\r<---END--->\r<---RUN--->\rls\r<---END--->")
	f.Fuzz(func(t *testing.T, in string) {
		d, err := Blocks("fuzz", strings.NewReader(in))
		if err != nil {
			t.Fatalf("Blocks: %v", err)
		}
		checkDocument(t, in, d)
	})
}
