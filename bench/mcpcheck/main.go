// Command mcpcheck measures clada mcp as an agent sees it: it starts
// `clada mcp` in a project, connects the official Go SDK's client over
// stdio, and times round trips of the check tool (request written to the
// server's stdin until the result is decoded from its stdout). It also
// reads the server's resident memory once it has started and served, and
// again after it has sat idle. bench/run.sh runs it; see bench/README.md.
//
//	mcpcheck -clada ./clada -root DIR [-n 2000] [-command 'git status']
//
// It prints one line of names and values for bench/run.sh (round trip
// median and 99th percentile and the server's CPU per call in µs; its RSS
// in KiB when started, after the calls and after sitting idle), and the
// same in words on stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	clada := flag.String("clada", "clada", "the clada binary")
	root := flag.String("root", ".", "the project root to serve")
	n := flag.Int("n", 2000, "round trips to time")
	command := flag.String("command", "git status", "the command to check")
	idle := flag.Duration("idle", 2*time.Second, "how long the server sits idle before its RSS is read again")
	flag.Parse()
	if err := run(*clada, *root, *command, *n, *idle); err != nil {
		fmt.Fprintln(os.Stderr, "mcpcheck:", err)
		os.Exit(1)
	}
}

func run(clada, root, command string, n int, idle time.Duration) error {
	ctx := context.Background()
	cmd := exec.Command(clada, "mcp", "--root", root)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcheck", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	startRSS, err := RSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	cpu0, err := CPU(cmd.Process.Pid)
	if err != nil {
		return err
	}
	times, err := RoundTrips(ctx, cs, command, n)
	if err != nil {
		return err
	}
	cpu1, err := CPU(cmd.Process.Pid)
	if err != nil {
		return err
	}
	busyRSS, err := RSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	time.Sleep(idle)
	rss, err := RSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	slices.Sort(times)
	med, p99, cpu := micro(times[len(times)/2]), micro(times[len(times)*99/100]), micro((cpu1-cpu0)/time.Duration(n+100))
	fmt.Printf("median_us %.1f p99_us %.1f cpu_us %.1f rss_start_kib %d rss_busy_kib %d rss_idle_kib %d\n", med, p99, cpu, startRSS, busyRSS, rss)
	fmt.Fprintf(os.Stderr, "check round trip: median %.1f µs, p99 %.1f µs over %d calls; server CPU %.1f µs per call (100 warm-up calls included); RSS %d KiB started, %d KiB after the calls, %d KiB idle %s later\n",
		med, p99, n, cpu, startRSS, busyRSS, rss, idle)
	return nil
}

func micro(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// RoundTrips warms the server up with 100 calls, then times n calls of
// check with command.
func RoundTrips(ctx context.Context, cs *mcp.ClientSession, command string, n int) ([]time.Duration, error) {
	params := &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"command": command}}
	for range 100 {
		if _, err := cs.CallTool(ctx, params); err != nil {
			return nil, err
		}
	}
	times := make([]time.Duration, n)
	for i := range times {
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		times[i] = time.Since(start)
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("check %s: %v", command, res.Content)
		}
	}
	return times, nil
}

// CPU is the user and system time process pid has used (Linux:
// /proc/PID/stat, in clock ticks of 10 ms).
func CPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the parenthesised command name; utime and stime
	// are the 14th and 15th fields of the line.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// RSS is the resident set of process pid in KiB (Linux: VmRSS in
// /proc/PID/status).
func RSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
