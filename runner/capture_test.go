package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGrow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		len, cap int
		left     int64
		wantCap  int
		reason   string
	}{
		{name: "first chunk", left: 10_000_000, wantCap: firstChunk},
		{name: "first chunk capped by budget", left: 100, wantCap: 100},
		{name: "doubles", len: 4096, cap: 4096, left: 10_000_000, wantCap: 8192},
		{name: "doubling capped by budget", len: 4096, cap: 4096, left: 1000, wantCap: 5096},
		{
			name: "jumps to the final size", len: jumpAt, cap: jumpAt, left: 5_000_000, wantCap: jumpAt + 5_000_000,
			reason: "past jumpAt the old and new buffers are never both large",
		},
		{
			name: "huge caps keep doubling", len: jumpAt, cap: jumpAt, left: 1 << 30, wantCap: 2 * jumpAt,
			reason: "a final-size allocation is bounded by maxJump",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			buf := make([]byte, tt.len, tt.cap)
			for i := range buf {
				buf[i] = 'a'
			}
			got := grow(buf, tt.left)
			if cap(got) != tt.wantCap {
				t.Errorf("cap = %d, want %d (%s)", cap(got), tt.wantCap, tt.reason)
			}
			if string(got) != string(buf) {
				t.Errorf("contents changed")
			}
		})
	}
}

func TestCaptureDrain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		out, err            string
		max                 int64
		wantOut, wantErr    string
		wantTrunc, wantFull bool
		wantDropped         int64
	}{
		{name: "under the cap", out: "hello", err: "oops", max: 100, wantOut: "hello", wantErr: "oops"},
		{name: "exactly the cap", out: "hello", err: "oops", max: 9, wantOut: "hello", wantErr: "oops"},
		{
			name: "budget shared by the streams", out: strings.Repeat("o", 600), err: strings.Repeat("e", 600), max: 1000,
			wantOut: strings.Repeat("o", 600), wantErr: strings.Repeat("e", 400), wantTrunc: true, wantFull: true, wantDropped: 200,
		},
		{
			name: "past the cap", out: strings.Repeat("o", 3000), err: "", max: 1000,
			wantOut: strings.Repeat("o", 1000), wantTrunc: true, wantFull: true, wantDropped: 2000,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fulls := 0
			c := capture{left: tt.max, full: func() { fulls++ }}
			done := make(chan struct{}, 2)
			var out, errOut []byte
			// One stream at a time, so that which bytes are kept is
			// deterministic.
			c.drain(strings.NewReader(tt.out), &out, done)
			c.drain(strings.NewReader(tt.err), &errOut, done)
			<-done
			<-done
			type result struct {
				Out, Err  string
				Truncated bool
				Fulls     int
				Dropped   int64
			}
			want := result{tt.wantOut, tt.wantErr, tt.wantTrunc, map[bool]int{true: 1}[tt.wantFull], tt.wantDropped}
			got := result{string(out), string(errOut), c.truncated, fulls, c.dropped}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
