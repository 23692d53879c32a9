package output

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seq returns "1\n2\n…n\n", what `seq 1 n` prints.
func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// write writes text to a fresh memory Stream in chunks of size chunk.
func write(text string, keep, chunk int) *Stream {
	s := NewStream("stdout", keep)
	for p := []byte(text); len(p) > 0; {
		n := min(chunk, len(p))
		s.Write(p[:n])
		p = p[n:]
	}
	return s
}

func TestStreamCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		text         string
		bytes, lines int64
	}{
		{name: "empty"},
		{name: "one line", text: "hi\n", bytes: 3, lines: 1},
		{name: "no final newline", text: "a\nb", bytes: 3, lines: 2},
		{name: "blank lines", text: "\n\n", bytes: 2, lines: 2},
		{name: "seq", text: seq(3000), bytes: int64(len(seq(3000))), lines: 3000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := write(tt.text, 100, 7)
			if s.Bytes() != tt.bytes || s.Lines() != tt.lines {
				t.Errorf("Bytes, Lines = %d, %d; want %d, %d", s.Bytes(), s.Lines(), tt.bytes, tt.lines)
			}
		})
	}
}

// TestStreamKeepsEnds writes random text in random chunks and checks that
// the head and the tail are the text's first and last keep bytes.
func TestStreamKeepsEnds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		keep := 1 + r.IntN(300)
		text := make([]byte, r.IntN(2000))
		for j := range text {
			text[j] = byte('a' + r.IntN(26))
		}
		s := NewStream("stdout", keep)
		for p := text; len(p) > 0; {
			n := min(1+r.IntN(2*keep), len(p))
			s.Write(p[:n])
			p = p[n:]
		}
		wantHead := text[:min(keep, len(text))]
		wantTail := text[max(len(text)-keep, 0):]
		if !bytes.Equal(s.head, wantHead) || !bytes.Equal(s.tail(), wantTail) {
			t.Fatalf("case %d (keep %d, %d bytes): head %q tail %q, want %q %q", i, keep, len(text), s.head, s.tail(), wantHead, wantTail)
		}
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 1000) // 2000 bytes, one line without a newline
	tests := []struct {
		name               string
		text               string
		keep               int
		maxBytes, maxLines int
		want               Excerpt
		reason             string
	}{
		{
			name: "whole", text: "a\nb\n", keep: 100, maxBytes: 100, maxLines: 10,
			want: Excerpt{Head: []byte("a\nb\n"), Whole: true},
		},
		{
			name: "exactly the budget is whole", text: "a\nb\n", keep: 4, maxBytes: 4, maxLines: 2,
			want: Excerpt{Head: []byte("a\nb\n"), Whole: true},
		},
		{
			name: "over the line budget", text: seq(10), keep: 100, maxBytes: 100, maxLines: 6,
			want:   Excerpt{Head: []byte("1\n2\n"), Tail: []byte("7\n8\n9\n10\n"), OmittedBytes: 21 - 4 - 9, OmittedLines: 4},
			reason: "a third of the lines for the head, the rest for the tail",
		},
		{
			name: "over the byte budget", text: seq(100), keep: 60, maxBytes: 30, maxLines: 100,
			// head gets 10 bytes, tail 20.
			want: Excerpt{Head: []byte("1\n2\n3\n4\n5\n"), Tail: []byte("95\n96\n97\n98\n99\n100\n"),
				OmittedBytes: 292 - 10 - 19, OmittedLines: 100 - 5 - 6},
		},
		{
			name: "no final newline", text: "1\n2\n3\n4\n5\n6\nend", keep: 100, maxBytes: 100, maxLines: 3,
			want: Excerpt{Head: []byte("1\n"), Tail: []byte("6\nend"), OmittedBytes: 15 - 2 - 5, OmittedLines: 7 - 1 - 2},
		},
		{
			name: "one long line is cut at both ends", text: long, keep: 3000, maxBytes: 300, maxLines: 10,
			want:   Excerpt{Head: []byte(long[:100]), Tail: []byte(long[:200]), OmittedBytes: 1700, Cut: true},
			reason: "the cut falls on a rune boundary; the one line counts as shown",
		},
		{
			name: "cut on a rune boundary", text: long, keep: 3000, maxBytes: 301, maxLines: 10,
			want: Excerpt{Head: []byte(long[:100]), Tail: []byte(long[:200]), OmittedBytes: 1700, Cut: true},
		},
		{
			name: "tail past the kept bytes drops the partial first line", text: "aaaaaaaaaa\nbb\ncc\n", keep: 8, maxBytes: 8, maxLines: 10,
			// The ring holds "a\nbb\ncc\n": the 'a' is part of a line whose start is gone.
			want: Excerpt{Head: []byte("aa"), Tail: []byte("bb\ncc\n"), OmittedBytes: 17 - 2 - 6, Cut: true},
		},
		{
			name: "a line whose start is no longer kept is not taken whole", text: "aaaaaaaaaa\nb\n", keep: 8, maxBytes: 8, maxLines: 10,
			// The ring holds "aaaaa\nb\n", which would fit the tail's 6 bytes.
			want: Excerpt{Head: []byte("aa"), Tail: []byte("b\n"), OmittedBytes: 13 - 2 - 2, Cut: true},
		},
		{
			name: "zero budget shows nothing", text: seq(5), keep: 100, maxBytes: 0, maxLines: 0,
			want: Excerpt{Head: []byte{}, Tail: []byte{}, OmittedBytes: 10, OmittedLines: 5},
		},
		{
			name: "budget above keep is capped", text: seq(100), keep: 30, maxBytes: 1000, maxLines: 1000,
			want: Excerpt{Head: []byte("1\n2\n3\n4\n5\n"), Tail: []byte("95\n96\n97\n98\n99\n100\n"),
				OmittedBytes: 292 - 10 - 19, OmittedLines: 100 - 5 - 6},
			reason: "a stream larger than what it keeps is never whole",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, chunk := range []int{1, 7, 1 << 20} {
				got := write(tt.text, tt.keep, chunk).Excerpt(tt.maxBytes, tt.maxLines)
				if got.Head == nil {
					got.Head = []byte{}
				}
				want := tt.want
				if want.Head == nil {
					want.Head = []byte{}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("chunk %d: mismatch (-want +got) %s:\n%s", chunk, tt.reason, diff)
				}
			}
		})
	}
}

// TestExcerptBudget: whatever the output, an excerpt stays within its
// budget, the head is a prefix and the tail a suffix of the output, and
// the omitted counts add up.
func TestExcerptBudget(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		var b strings.Builder
		for range r.IntN(300) {
			b.WriteString(strings.Repeat("x", r.IntN(40)))
			if r.IntN(10) > 0 {
				b.WriteByte('\n')
			}
		}
		text := b.String()
		maxBytes, maxLines := r.IntN(400), r.IntN(40)
		keep := maxBytes + r.IntN(100)
		s := write(text, keep, 1+r.IntN(100))
		e := s.Excerpt(maxBytes, maxLines)
		shown := len(e.Head) + len(e.Tail)
		switch {
		case shown > maxBytes:
			t.Fatalf("case %d: %d bytes shown, budget %d", i, shown, maxBytes)
		case !strings.HasPrefix(text, string(e.Head)) || !strings.HasSuffix(text, string(e.Tail)):
			t.Fatalf("case %d: head or tail is not from the output", i)
		case e.Whole && string(e.Head) != text:
			t.Fatalf("case %d: whole but not the whole text", i)
		case !e.Whole && int64(shown)+e.OmittedBytes != s.Bytes():
			t.Fatalf("case %d: %d shown + %d omitted != %d", i, shown, e.OmittedBytes, s.Bytes())
		case !e.Whole && !e.Cut && strings.Count(string(e.Head)+string(e.Tail), "\n") > maxLines:
			t.Fatalf("case %d: more than %d lines shown", i, maxLines)
		case e.Whole && (len(text) > maxBytes || s.Lines() > int64(maxLines)):
			t.Fatalf("case %d: whole over the budget", i)
		}
	}
}
