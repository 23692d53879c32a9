package sandbox

import (
	"os/exec"
	"path/filepath"
	"testing"
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
			for b.Loop() {
				cmd := exec.Command(truePath)
				if _, err := sb.Start(cmd, Command{TmpDir: tmp}); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
