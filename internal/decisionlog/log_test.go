package decisionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func project(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".clada"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestAppendRead(t *testing.T) {
	root := project(t)
	l := New(root)
	code := 0
	if err := l.Append(Entry{Entry: EntryRun, Command: "ls -la", Dir: ".", Decision: "allow", Rule: "spec", Status: "ran", ApprovedBy: "spec", Exit: &code},
		Entry{Entry: EntryCheck, Command: "rm -rf /", Dir: ".", Decision: "deny", Rule: "hard-block", Status: "planned"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Entry{Entry: EntryHook, Agent: "claude-code", Command: "a && b", Decision: "ask", Rule: "not-in-specs"}); err != nil {
		t.Fatal(err)
	}
	got, bad, err := l.Read()
	if err != nil || bad != 0 || len(got) != 3 {
		t.Fatalf("Read = %d entries, %d bad, %v", len(got), bad, err)
	}
	if got[0].Command != "ls -la" || *got[0].Exit != 0 || got[1].Rule != "hard-block" || got[2].Agent != "claude-code" || got[2].Time.IsZero() {
		t.Errorf("entries %+v", got)
	}
	data, _ := os.ReadFile(filepath.Join(root, ".clada", "log", File))
	if !strings.Contains(string(data), `"command":"a && b"`) {
		t.Errorf("log holds %s; want && unescaped", data)
	}
	if fi, err := os.Stat(filepath.Join(root, ".clada", "log", ".gitignore")); err != nil || fi.Size() == 0 {
		t.Errorf(".gitignore: %v", err)
	}
}

// TestNoCladaNoLog: where there is no .clada, nothing is made.
func TestNoCladaNoLog(t *testing.T) {
	root := t.TempDir()
	if err := New(root).Append(Entry{Entry: EntryCheck, Command: "ls"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".clada")); !os.IsNotExist(err) {
		t.Errorf(".clada made: %v", err)
	}
	if got, _, err := New(root).Read(); err != nil || len(got) != 0 {
		t.Errorf("Read = %v, %v", got, err)
	}
}

// TestRotate: the log stays within Keep+1 files, the newest entries win.
func TestRotate(t *testing.T) {
	root := project(t)
	l := &Log{Root: root, MaxBytes: 1000, Keep: 2}
	for i := range 200 {
		if err := l.Append(Entry{Entry: EntryExec, Command: fmt.Sprintf("echo %d", i), Decision: "allow", Rule: "spec"}); err != nil {
			t.Fatal(err)
		}
	}
	names, _ := filepath.Glob(filepath.Join(root, ".clada", "log", "decisions*.jsonl"))
	if len(names) > 3 {
		t.Errorf("%d files: %v", len(names), names)
	}
	var total int64
	for _, n := range names {
		fi, _ := os.Stat(n)
		total += fi.Size()
	}
	if total > 3*1200 {
		t.Errorf("log holds %d bytes, over its bound", total)
	}
	got, _, err := l.Read()
	if err != nil || len(got) == 0 || got[len(got)-1].Command != "echo 199" {
		t.Fatalf("Read: %d entries, %v", len(got), err)
	}
	for i := 1; i < len(got); i++ {
		var a, b int
		fmt.Sscanf(got[i-1].Command, "echo %d", &a)
		fmt.Sscanf(got[i].Command, "echo %d", &b)
		if b != a+1 {
			t.Fatalf("entries out of order at %d: %q then %q", i, got[i-1].Command, got[i].Command)
		}
	}
}

// TestConcurrentAppends: lines from concurrent writers never mix.
func TestConcurrentAppends(t *testing.T) {
	root := project(t)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			l := New(root)
			for i := range 50 {
				_ = l.Append(Entry{Entry: EntryHook, Command: strings.Repeat(fmt.Sprint(w), 200) + fmt.Sprint(i)})
			}
		})
	}
	wg.Wait()
	got, bad, err := New(root).Read()
	if err != nil || bad != 0 || len(got) != 400 {
		t.Fatalf("Read = %d entries, %d bad, %v", len(got), bad, err)
	}
}

// BenchmarkAppend is the log's cost per command: one entry appended, as
// clada exec and a hook write it.
func BenchmarkAppend(b *testing.B) {
	root := project(b)
	l := &Log{Root: root, MaxBytes: 1 << 30}
	code, ms := 0, int64(12)
	e := Entry{Entry: EntryExec, Command: "go test ./...", Dir: ".", Decision: "allow", Rule: "spec-ask", Status: "ran",
		ApprovedBy: "allowed-pattern", Pattern: "go test *", Scope: "project", Sandbox: "confined: landlock v7 + seccomp, network off",
		Exit: &code, DurationMS: &ms, Output: []string{".clada/out/3/1.stdout"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}
