package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickCheck: clada check answered without the urfave/cli app
// (quickCheck) prints and exits exactly as the app does, for every form
// quickCheck takes, and leaves every other form to the app.
func TestQuickCheck(t *testing.T) {
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Skipf("git init: %v: %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	tests := []struct {
		args  string // split at spaces; _ is a space inside a word
		quick bool   // quickCheck takes it
	}{
		{"check -- git status", true},
		{"check -- git_status", true},
		{"check git_status", true},
		{"check -- rm -rf /", true},
		{"check rm_-rf_/", true},
		{"check -- ls_|_wc", true},
		{"check ls_|_wc", true},
		{"check --format json -- git status", true},
		{"check --format=json git_log", true},
		{"check --format github -- ls", true},
		{"check --format yaml -- ls", true},
		{"check --dir sub -- ls ..", true},
		{"check --dir=sub -- cat ../../x", true},
		{"check --dir nowhere -- ls", true},
		{"check --untrusted -- ls", true},
		{"check --os darwin -- ls . -la", true},
		{"check --os=plan9 -- ls", true},
		{"check --root sub -- ls", true},
		{"check --root=/nonexistent -- ls", true},
		{"check --root . --dir sub --format json --untrusted --os linux -- git diff", true},
		{"check -- --version", true},
		{"check -- ''", true},
		{"check ''", false},
		{"check --", false},
		{"check", false},
		{"check --format", false},
		{"check --format json", false},
		{"check git status", false},
		{"check git_status --format json", false},
		{"check --help", false},
		{"check -h", false},
		{"check -format json -- ls", false},
		{"check --format json --format text -- ls", false},
		{"check --untrusted=true -- ls", false},
		{"check --bogus -- ls", false},
		{"check -", false},
	}
	for _, tt := range tests {
		var args []string
		for _, w := range strings.Split(tt.args, " ") {
			if w == "''" {
				w = ""
			}
			args = append(args, strings.ReplaceAll(w, "_", " "))
		}
		args = append([]string{"clada"}, args...)
		if _, ok := quickCheck(args); ok != tt.quick {
			t.Errorf("%s: quickCheck takes it: %v, want %v", tt.args, ok, tt.quick)
		}
		var qout, qerr, aout, aerr bytes.Buffer
		qcode := runInProcess(args, strings.NewReader(""), &qout, &qerr)
		inProcess.Lock()
		acode := runApp(args, strings.NewReader(""), &aout, &aerr)
		inProcess.Unlock()
		if qcode != acode || qout.String() != aout.String() || qerr.String() != aerr.String() {
			t.Errorf("%s:\nquick: exit %d\n%s%s\napp: exit %d\n%s%s", tt.args, qcode, &qout, &qerr, acode, &aout, &aerr)
		}
	}
}
