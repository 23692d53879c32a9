package bench_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clada/clada/runner"
)

// catArgv returns `cat FILE` with a small file, the command of the
// runner comparison: it starts, prints one line and exits, so the figure
// is the per-command overhead, not the command's own work.
func catArgv(b *testing.B) []string {
	b.Helper()
	cat, err := exec.LookPath("cat")
	if err != nil {
		b.Skip("cat not installed")
	}
	f := filepath.Join(b.TempDir(), "small.txt")
	if err := os.WriteFile(f, []byte("a small file\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return []string{cat, f}
}

// BenchmarkRunnerCat is runner.Run with capture, cap and timeout: what
// clada pays per command.
func BenchmarkRunnerCat(b *testing.B) {
	argv := catArgv(b)
	ctx := context.Background()
	for b.Loop() {
		res := runner.Run(ctx, argv, runner.Config{})
		if !res.OK() || len(res.Stdout) == 0 {
			b.Fatalf("runner: %+v", res)
		}
	}
}

// BenchmarkBareExecCat is the reference for BenchmarkRunnerCat: plain
// exec.Command with stdout and stderr pipes read to the end, no cap, no
// timeout, no process group.
func BenchmarkBareExecCat(b *testing.B) {
	argv := catArgv(b)
	for b.Loop() {
		cmd := exec.Command(argv[0], argv[1:]...)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var out, errOut bytes.Buffer
		var wg sync.WaitGroup
		wg.Go(func() { io.Copy(&errOut, stderr) })
		io.Copy(&out, stdout)
		wg.Wait()
		if err := cmd.Wait(); err != nil || out.Len() == 0 {
			b.Fatal(err, out.Len())
		}
	}
}
