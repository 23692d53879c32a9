package hook

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// TestFindAgentProcess reads a real process tree: this test, and a shell
// it starts (as Gemini CLI runs `bash -c HOOK`), which is skipped.
func TestFindAgentProcess(t *testing.T) {
	p, ok := FindAgentProcess(os.Getpid())
	if !ok || !slices.Equal(p.Args, os.Args) {
		t.Fatalf("FindAgentProcess(self) = %+v, %v; want args %q", p, ok, os.Args)
	}
	// go test's stdout is not a terminal here, nor under CI.
	if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice == 0 && p.StdoutTTY {
		t.Errorf("stdout is %v, but FindAgentProcess says it is a terminal", fi.Mode())
	}
	sh := exec.Command("sh", "-c", "sleep 10; :") // `; :` keeps sh from exec'ing sleep
	if err := sh.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	defer func() { sh.Process.Kill(); sh.Wait() }()
	time.Sleep(50 * time.Millisecond) // let sh exec and read its cmdline
	p, ok = FindAgentProcess(sh.Process.Pid)
	if !ok || !slices.Equal(p.Args, os.Args) {
		t.Fatalf("FindAgentProcess(sh) = %+v, %v; want the shell's parent, args %q", p, ok, os.Args)
	}
	if _, ok := FindAgentProcess(1 << 30); ok {
		t.Error("FindAgentProcess of a process that does not exist: ok")
	}
}
