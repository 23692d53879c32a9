//go:build linux

package mcpserver_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPCheck is one round trip of clada mcp's check tool as an
// agent makes it: the official Go SDK's client writes the request to the
// stdin of a real clada-mcp process (the release build, what `clada mcp`
// starts) and decodes the result from its stdout. bench/mcpcheck does the same from bench/run.sh
// and also reads the server's idle RSS; see bench/README.md. With
// -benchtime of 100 calls or more it reports the server's RSS after the
// calls and after it sat idle (rss-busy-KiB, rss-idle-KiB).
func BenchmarkMCPCheck(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "clada-mcp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/clada-mcp")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as README's Install builds it
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	root := b.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".clada"), 0o755); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "--root", root)
	cmd.Env = append(os.Environ(), "CI=")
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"command": "git status"}}
	for range 50 { // warm up: the first call lists the client's roots
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	if b.N < 100 {
		return
	}
	b.StopTimer()
	busy := rssKiB(b, cmd.Process.Pid)
	time.Sleep(3 * time.Second) // clada-mcp gives memory back after 2 s idle
	b.ReportMetric(float64(busy), "rss-busy-KiB")
	b.ReportMetric(float64(rssKiB(b, cmd.Process.Pid)), "rss-idle-KiB")
}

// rssKiB is the resident set of process pid (VmRSS in /proc/PID/status).
func rssKiB(b *testing.B, pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kib
		}
	}
	b.Fatalf("no VmRSS for %d", pid)
	return 0
}
