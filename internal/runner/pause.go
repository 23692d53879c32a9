package runner

import (
	"sync"
	"time"
)

// Pause stops the clock of a command's timeout while it is held: clada
// holds it while it asks the person whether the running command may
// reach a host (docs/rules.md, "The network"), so that the time the
// person takes to answer never makes the command time out. The command
// itself keeps running; only the count of its run time stops. The zero
// Pause is ready to use, and a Pause is safe for concurrent use. One
// Pause serves one [Config] (one command or script) at a time.
type Pause struct {
	mu    sync.Mutex
	held  int           // holds not yet released
	since time.Time     // when held went from 0 to 1
	total time.Duration // held time of the holds already released
}

// Hold stops the clock until release is called; holds may overlap, and
// the clock runs again when the last one is released. Calling release
// more than once does nothing more.
func (p *Pause) Hold() (release func()) {
	p.mu.Lock()
	if p.held == 0 {
		p.since = time.Now()
	}
	p.held++
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.held--
			if p.held == 0 {
				p.total += time.Since(p.since)
			}
			p.mu.Unlock()
		})
	}
}

// Held returns the time the clock has stood still up to now, and
// whether it stands still now.
func (p *Pause) Held() (d time.Duration, holding bool) {
	if p == nil {
		return 0, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	d = p.total
	if p.held > 0 {
		d += time.Since(p.since)
	}
	return d, p.held > 0
}
