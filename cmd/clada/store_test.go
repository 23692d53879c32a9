package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/testproc"
)

// cladaCmd returns a command that runs clada in a process of its own: the
// test binary started under the name "clada", which testscript.Main in
// TestMain turns into a call of main's run. The project root is root.
func cladaCmd(t testing.TB, root string, args ...string) *exec.Cmd {
	t.Helper()
	return testproc.Command(cladaExe(t), "clada", root, args...)
}

// newRoot returns a project root with an empty .clada/.
func newRoot(t testing.TB) string { return testproc.NewRoot(t) }

// trustRoot trusts root's .clada files as they are now: the test wrote
// them as the person would, and trusts them as the person would with
// clada trust.
func trustRoot(t testing.TB, root string) {
	t.Helper()
	if err := approve.TrustCurrent(root); err != nil {
		t.Fatalf("trusting %s: %v", root, err)
	}
}

// exitCodeOf returns the exit code of a finished command, failing the test
// when it did not start or was killed.
func exitCodeOf(t testing.TB, err error) int { return testproc.ExitCode(t, err) }

// commandsFile is .clada/commands.toml decoded directly, independent of
// the approve package that writes it.
type commandsFile struct {
	Allowed []string `toml:"allowed"`
	Blocked []string `toml:"blocked"`
}

func readCommandsFile(t *testing.T, root string) commandsFile {
	t.Helper()
	var f commandsFile
	md, err := toml.DecodeFile(filepath.Join(root, ".clada", "commands.toml"), &f)
	if err != nil {
		t.Fatalf("commands.toml does not parse: %v", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		t.Errorf("commands.toml has unexpected keys %v", und)
	}
	return f
}

// TestConcurrentStoreProcesses starts 20 clada processes at once, each
// adding a different pattern; the lock and the atomic rename must keep
// every one of them.
func TestConcurrentStoreProcesses(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	const n = 20
	var wantAllowed, wantBlocked []string
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range n {
		verb, pattern := "allow", fmt.Sprintf("argv allowed-%02d", i)
		if i%4 == 3 { // a few block, so both lists are written concurrently
			verb, pattern = "block", fmt.Sprintf("argv blocked-%02d *", i)
			wantBlocked = append(wantBlocked, pattern)
		} else {
			wantAllowed = append(wantAllowed, pattern)
		}
		cmds[i] = cladaCmd(t, root, verb, "--root", root, pattern)
		outs[i] = new(bytes.Buffer)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
	}

	// Start them all before waiting for any, so that they overlap.
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = c.Run()
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if code := exitCodeOf(t, err); code != 0 {
			t.Errorf("process %d exited %d:\n%s", i, code, outs[i])
		}
		if !strings.Contains(outs[i].String(), "clada: added `") {
			t.Errorf("process %d did not report the pattern it added:\n%s", i, outs[i])
		}
	}

	got := readCommandsFile(t, root)
	slices.Sort(got.Allowed)
	slices.Sort(got.Blocked)
	if diff := diffLines(wantAllowed, got.Allowed); diff != "" {
		t.Errorf("allowed after %d concurrent processes (-want +got):\n%s", n, diff)
	}
	if diff := diffLines(wantBlocked, got.Blocked); diff != "" {
		t.Errorf("blocked after %d concurrent processes (-want +got):\n%s", n, diff)
	}

	// No temporary file is left behind next to commands.toml.
	entries, err := os.ReadDir(filepath.Join(root, ".clada"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "commands.toml", "commands.toml.lock":
		default:
			t.Errorf("unexpected file left in .clada/: %s", e.Name())
		}
	}

	// clada list, in another process, sees all of them.
	list := cladaCmd(t, root, "list", "--root", root)
	out, err := list.Output()
	if code := exitCodeOf(t, err); code != 0 {
		t.Fatalf("clada list exited %d", code)
	}
	for _, p := range append(slices.Clone(wantAllowed), wantBlocked...) {
		if !strings.Contains(string(out), "  "+p+"\n") {
			t.Errorf("clada list does not show %q:\n%s", p, out)
		}
	}
}

// TestStoreExitCodes checks the exact exit codes of the README for the
// store and configuration errors that the scripts can only see as
// "non-zero".
func TestStoreExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		commands string // content of .clada/commands.toml, "" for none
		config   string // content of .clada/config.toml, "" for none
		args     []string
		stdin    string
		want     int
		wantErr  string // in stderr
	}{
		{name: "allow ok", args: []string{"allow", "argv ok"}, want: exitOK},
		{name: "allow shell syntax", args: []string{"allow", "npm test && rm x"}, want: exitUsage, wantErr: "`&&`"},
		{name: "allow no pattern", args: []string{"allow"}, want: exitUsage, wantErr: "no pattern"},
		{name: "forget missing", args: []string{"forget", "argv nothing"}, want: exitFailed},
		{name: "corrupt commands run", commands: "allowed = [\n\"x\n]\n", args: []string{"run", "--no-prompt"},
			stdin: "<---RUN--->\necho hi\n<---END--->\n", want: exitUsage, wantErr: "commands.toml:2: "},
		{name: "corrupt commands allow", commands: "allowed = [\n\"x\n]\n", args: []string{"allow", "argv y"},
			want: exitUsage, wantErr: "commands.toml:2: "},
		{name: "config out of range", config: "approval_timeout = \"5s\"\n", args: []string{"run", "--no-prompt"},
			stdin: "<---RUN--->\necho hi\n<---END--->\n", want: exitUsage, wantErr: "approval_timeout"},
		{name: "config unknown key", config: "colour = 1\n", args: []string{"check", "--", "ls"},
			want: exitUsage, wantErr: "colour"},
		{name: "dry run untrusted", config: "untrusted = true\n", args: []string{"run", "--dry-run"},
			stdin: "<---RUN--->\nls\n<---END--->\n", want: exitApproval},
		{name: "trust-all with no-prompt", args: []string{"run", "--trust-all", "--no-prompt"},
			stdin: "<---RUN--->\nls\n<---END--->\n", want: exitUsage, wantErr: "can't be used with"},
		{name: "run all ok", args: []string{"run", "--no-prompt"},
			stdin: "<---RUN--->\necho hi\n<---END--->\n", want: exitOK},
		{name: "run asked not approved", args: []string{"run", "--no-prompt"},
			stdin: "<---RUN--->\ntrue\n<---END--->\n", want: exitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := newRoot(t)
			for name, content := range map[string]string{"commands.toml": tt.commands, "config.toml": tt.config} {
				if content != "" {
					if err := os.WriteFile(filepath.Join(root, ".clada", name), []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			cmd := cladaCmd(t, root, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if got := exitCodeOf(t, err); got != tt.want {
				t.Errorf("exit code %d, want %d; stderr:\n%s", got, tt.want, &stderr)
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantErr, &stderr)
			}
			if tt.commands != "" {
				data, err := os.ReadFile(filepath.Join(root, ".clada", "commands.toml"))
				if err != nil || string(data) != tt.commands {
					t.Errorf("commands.toml was changed (err %v):\n%s", err, data)
				}
			}
		})
	}
}
