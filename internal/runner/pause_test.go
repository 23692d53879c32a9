//go:build unix

package runner

import (
	"context"
	"testing"
	"time"
)

// TestPauseHoldsTheTimeout: a command that sleeps 1.5 s with a 1 s
// timeout runs to its end when the timeout's clock is held for a second
// of it (clada asking the person about a host), and times out when the
// clock is never held or is held only briefly.
func TestPauseHoldsTheTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		hold time.Duration // held from 0.2 s after the start for this long
		want Status
	}{
		{"not held", 0, StatusTimedOut},
		{"held 100ms", 100 * time.Millisecond, StatusTimedOut},
		{"held 1.2s", 1200 * time.Millisecond, StatusExited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := &Pause{}
			if tc.hold > 0 {
				go func() {
					time.Sleep(200 * time.Millisecond)
					release := p.Hold()
					time.Sleep(tc.hold)
					release()
					release() // a second release changes nothing
				}()
			}
			start := time.Now()
			got := capRun(t, context.Background(), helperArgv(t, "nap", "1500ms"), Config{Timeout: time.Second, Pause: p})
			if got.Status != tc.want {
				t.Fatalf("status %v after %v; want %v", got.Status, time.Since(start), tc.want)
			}
			held, holding := p.Held()
			if holding || held < tc.hold {
				t.Errorf("Held() = %v, %v after the run; want at least %v, false", held, holding, tc.hold)
			}
		})
	}
}

// TestPauseOverlappingHolds: the clock stands still until the last of
// overlapping holds is released, and counts the time once.
func TestPauseOverlappingHolds(t *testing.T) {
	var p Pause
	r1 := p.Hold()
	time.Sleep(20 * time.Millisecond)
	r2 := p.Hold()
	r1()
	if _, holding := p.Held(); !holding {
		t.Fatal("the clock runs again while a second hold is open")
	}
	time.Sleep(20 * time.Millisecond)
	r2()
	d, holding := p.Held()
	if holding || d < 40*time.Millisecond || d > 2*time.Second {
		t.Fatalf("Held() = %v, %v; want about 40ms, false", d, holding)
	}
}
