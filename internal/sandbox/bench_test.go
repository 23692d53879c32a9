//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStart is the confinement's own cost: starting and waiting for
// /bin/true unconfined (off), confined from a launcher as clada's runner
// starts every command (launcher: the TMPDIR lies in TempRoot, and the
// launcher built by the first command serves the rest), and confined
// from a thread of its own that confines itself per command (thread:
// what building a launcher costs, once per set of grants). bench/run.sh
// reports the differences.
func BenchmarkStart(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip(err)
	}
	for _, variant := range []string{"off", "launcher", "thread"} {
		b.Run(variant, func(b *testing.B) {
			root := b.TempDir()
			mode := ModeAuto
			if variant == "off" {
				mode = ModeOff
			}
			sb, err := New(Options{Mode: mode, Root: root})
			if err != nil {
				b.Fatal(err)
			}
			defer sb.Close()
			if mode == ModeAuto && !sb.Support().Confines() {
				b.Skipf("this machine cannot confine commands: %s", sb.Support().Reason)
			}
			tmp := filepath.Join(root, "tmp")
			if variant == "launcher" {
				tmp = filepath.Join(sb.TempRoot(), "cmd")
			}
			if err := os.MkdirAll(tmp, 0o700); err != nil {
				b.Fatal(err)
			}
			before := cpuTime()
			var child time.Duration
			for b.Loop() {
				cmd := exec.Command(truePath)
				if _, err := sb.Start(cmd, Command{TmpDir: tmp}); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				child += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(child.Nanoseconds())/float64(b.N), "child-cpu-ns/op")
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
