//go:build unix

package runner

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// trueProgram is the tiny child both per-command benchmarks run.
func trueProgram(b *testing.B) string {
	b.Helper()
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true program:", err)
	}
	return path
}

// BenchmarkRun measures Run's per-command cost (capture, cap, timeout,
// process group) on a child that does nothing; compare BenchmarkBareExec.
func BenchmarkRun(b *testing.B) {
	argv := []string{trueProgram(b)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := Run(ctx, argv, Config{}); !r.OK() {
			b.Fatalf("Run: %v %v", r.Status, r.Err)
		}
	}
}

// BenchmarkBareExec is the baseline: exec.Command with captured pipes.
func BenchmarkBareExec(b *testing.B) {
	path := trueProgram(b)
	b.ReportAllocs()
	for b.Loop() {
		var out, errOut bytes.Buffer
		cmd := exec.Command(path)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHugeOutput runs a child that would print 1 GiB with the default
// 10 MB cap, its output passed to io.Discard, and reports the peak RSS of
// this process (Run holds no output, so it should grow by little more than
// its 32 KiB read buffers, whatever the cap) and the bytes read past the
// cap before the kill took effect.
func BenchmarkHugeOutput(b *testing.B) {
	argv := helperArgv(b, "print", "1073741824")
	ctx := context.Background()
	before := maxRSS(b)
	var dropped int64
	for b.Loop() {
		r := Run(ctx, argv, Config{MaxOutput: DefaultMaxOutput, Stdout: io.Discard})
		if r.Status != StatusTruncated || r.StdoutBytes != DefaultMaxOutput {
			b.Fatalf("Run: %v, %d bytes passed on", r.Status, r.StdoutBytes)
		}
		dropped = max(dropped, r.Dropped)
		// Collect this result before the next run, so that the peak is that
		// of one command at a time rather than of GC pacing over many.
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
	}
	after := maxRSS(b)
	b.ReportMetric(float64(after)/(1<<20), "peak-rss-MiB")
	b.ReportMetric(float64(before)/(1<<20), "start-rss-MiB")
	b.ReportMetric(float64(dropped), "max-dropped-B")
}

// maxRSS returns this process's peak resident set size in bytes.
func maxRSS(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes
	}
	return int64(ru.Maxrss) << 10 // KiB elsewhere
}
