package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
		{
			name: "larger than a read", out: strings.Repeat("o", 3*readSize+7), err: "", max: 1 << 30,
			wantOut: strings.Repeat("o", 3*readSize+7),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fulls := 0
			c := capture{left: tt.max, full: func() { fulls++ }}
			done := make(chan struct{}, 2)
			var out, errOut strings.Builder
			outSink, errSink := &sink{w: &out}, &sink{w: &errOut}
			// One stream at a time, so that which bytes are kept is
			// deterministic.
			c.drain(strings.NewReader(tt.out), outSink, done)
			c.drain(strings.NewReader(tt.err), errSink, done)
			<-done
			<-done
			type result struct {
				Out, Err       string
				Written        [2]int64
				Truncated      bool
				Fulls          int
				Dropped        int64
				OutErr, ErrErr error
			}
			want := result{tt.wantOut, tt.wantErr, [2]int64{int64(len(tt.wantOut)), int64(len(tt.wantErr))},
				tt.wantTrunc, map[bool]int{true: 1}[tt.wantFull], tt.wantDropped, nil, nil}
			got := result{out.String(), errOut.String(), [2]int64{outSink.written, errSink.written},
				c.truncated, fulls, c.dropped, outSink.err, errSink.err}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// failingWriter accepts n bytes, then fails.
type failingWriter struct {
	n   int
	got strings.Builder
}

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.got.Len()+len(p) > f.n {
		return 0, errDiskFull
	}
	return f.got.Write(p)
}

// TestCaptureDrainWriteError: a sink that fails gets nothing more, the
// stream is still read to its end and counted, and the error is kept.
func TestCaptureDrainWriteError(t *testing.T) {
	t.Parallel()
	c := capture{left: 1 << 30, full: func() { t.Error("the cap was not reached") }}
	done := make(chan struct{}, 1)
	w := &failingWriter{n: readSize}
	s := &sink{w: w}
	c.drain(strings.NewReader(strings.Repeat("x", 3*readSize)), s, done)
	<-done
	if !errors.Is(s.err, errDiskFull) {
		t.Errorf("err = %v, want %v", s.err, errDiskFull)
	}
	if w.got.Len() != readSize {
		t.Errorf("the sink got %d bytes, want the %d before the error", w.got.Len(), readSize)
	}
	if s.written != 3*readSize {
		t.Errorf("written = %d, want the whole stream, %d", s.written, 3*readSize)
	}
}

// TestCaptureDrainNilSink: a nil sink discards, and the bytes still count
// against the cap.
func TestCaptureDrainNilSink(t *testing.T) {
	t.Parallel()
	fulls := 0
	c := capture{left: 10, full: func() { fulls++ }}
	done := make(chan struct{}, 1)
	s := &sink{}
	c.drain(strings.NewReader("0123456789abc"), s, done)
	<-done
	if s.written != 10 || !c.truncated || c.dropped != 3 || fulls != 1 {
		t.Errorf("written %d, truncated %v, dropped %d, fulls %d; want 10, true, 3, 1", s.written, c.truncated, c.dropped, fulls)
	}
}
