//go:build unix

package sandbox

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStart is the confinement's own cost: starting and waiting for
// /bin/true confined (sub-benchmark confined) against the same start
// unconfined (off), from one Sandbox as clada uses it. bench/run.sh
// reports the difference per command.
func BenchmarkStart(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip(err)
	}
	root := b.TempDir()
	tmp := filepath.Join(root, "tmp")
	for _, mode := range []Mode{ModeOff, ModeAuto} {
		name := "off"
		if mode == ModeAuto {
			name = "confined"
		}
		b.Run(name, func(b *testing.B) {
			sb, err := New(Options{Mode: mode, Root: root})
			if err != nil {
				b.Fatal(err)
			}
			defer sb.Close()
			if mode == ModeAuto && !sb.Support().Confines() {
				b.Skipf("this machine cannot confine commands: %s", sb.Support().Reason)
			}
			before := cpuTime()
			for b.Loop() {
				cmd := exec.Command(truePath)
				if _, err := sb.Start(cmd, Command{TmpDir: tmp}); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time of this process and its children per command: on a
			// loaded machine it varies less than the wall time.
			b.ReportMetric(float64((cpuTime()-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the user and system time of this process and its waited-for
// children so far.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	total := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return total(self) + total(children)
}
