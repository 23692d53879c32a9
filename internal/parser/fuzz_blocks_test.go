package parser

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzBlocks checks that no document makes Blocks panic, and that every
// result keeps the invariants of checkDocument: lines in range, errors in
// order, no RUN block from inside a WRITE or SEARCH block. It also checks
// that CRLF endings parse like LF ones, and that text without a column-1
// `<---END` line, wrapped in a WRITE block, is one skipped block and
// nothing else. The seeds are the table-test inputs.
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

		if !strings.Contains(in, "\r") {
			crlf, err := Blocks("fuzz", strings.NewReader(strings.ReplaceAll(in, "\n", "\r\n")))
			if err != nil {
				t.Fatalf("Blocks: %v", err)
			}
			if diff := cmp.Diff(d, crlf); diff != "" {
				t.Errorf("LF and CRLF documents differ (-LF +CRLF):\n%s", diff)
			}
		}

		body := strings.ReplaceAll(strings.ReplaceAll(in, "\r\n", "\n"), "\r", "\n")
		if utf8.ValidString(in) && !strings.HasPrefix(body, "<---END") && !strings.Contains(body, "\n<---END") {
			w, err := Blocks("fuzz", strings.NewReader("<---WRITE--->\n"+in+"\n<---END--->\n"))
			if err != nil {
				t.Fatalf("Blocks: %v", err)
			}
			if len(w.Blocks) != 1 || w.Blocks[0].Kind != KindWrite || !w.OK() || len(w.Warnings) != 0 {
				t.Errorf("inside WRITE: %d blocks, fatal %v, errors %v, warnings %v", len(w.Blocks), w.Fatal, w.Errors, w.Warnings)
			}
		}
	})
}
