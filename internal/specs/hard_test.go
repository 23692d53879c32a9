package specs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

func TestHardBlock(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	tests := []struct {
		name  string
		argv  []string
		dir   string // relative to root
		block bool
	}{
		{"sudo", []string{"sudo", "ls"}, "", true},
		{"'su''do' arrives as sudo", []string{"sudo"}, "", true},
		{"su", []string{"su", "-"}, "", true},
		{"doas", []string{"doas", "x"}, "", true},
		{"absolute sudo", []string{"/usr/bin/sudo", "x"}, "", true},
		{"upper-case SUDO", []string{"SUDO", "x"}, "", true},
		{"mkfs", []string{"mkfs", "/dev/sda"}, "", true},
		{"mkfs.ext4", []string{"mkfs.ext4", "/dev/sda"}, "", true},
		{"dd", []string{"dd", "if=/dev/zero", "of=x"}, "", true},
		{"shutdown", []string{"shutdown", "now"}, "", true},
		{"reboot", []string{"reboot"}, "", true},
		{"halt", []string{"halt"}, "", true},
		{"poweroff", []string{"poweroff"}, "", true},
		{"env sudo", []string{"env", "sudo", "x"}, "", true},
		{"env -i VAR sudo", []string{"env", "-i", "A=b", "sudo", "x"}, "", true},
		{"env -u NAME sudo", []string{"env", "-u", "HOME", "sudo", "x"}, "", true},
		{"env -S split", []string{"env", "-S", "sudo ls"}, "", true},
		{"env --split-string=", []string{"env", "--split-string=sudo ls"}, "", true},
		{"timeout 5 sudo", []string{"timeout", "5", "sudo", "x"}, "", true},
		{"timeout -s KILL 5 sudo", []string{"timeout", "-s", "KILL", "5", "sudo", "x"}, "", true},
		{"nice -n 5 sudo", []string{"nice", "-n", "5", "sudo", "x"}, "", true},
		{"nice -5 sudo", []string{"nice", "-5", "sudo"}, "", true},
		{"nohup sudo", []string{"nohup", "sudo", "x"}, "", true},
		{"command sudo", []string{"command", "sudo", "x"}, "", true},
		{"exec sudo", []string{"exec", "sudo", "x"}, "", true},
		{"xargs sudo", []string{"xargs", "-n", "1", "sudo"}, "", true},
		{"busybox rm -rf /", []string{"busybox", "rm", "-rf", "/"}, "", true},
		{"busybox sudo", []string{"busybox", "sudo"}, "", true},
		{"nested wrappers", []string{"env", "nice", "timeout", "3", "nohup", "dd"}, "", true},
		{"sh -c sudo", []string{"sh", "-c", "sudo x"}, "", true},
		{"bash -c after ;", []string{"bash", "-c", "ls; sudo x"}, "", true},
		{"bash -lc", []string{"bash", "-lc", "echo hi && sudo x"}, "", true},
		{"sh -c rm -rf /", []string{"sh", "-c", "rm -rf /"}, "", true},
		{"sh -c quoted", []string{"sh", "-c", "'sudo' x"}, "", true},
		{"rm -rf /", []string{"rm", "-rf", "/"}, "", true},
		{"rm /", []string{"rm", "/"}, "", true},
		{"rm //", []string{"rm", "-r", "//"}, "", true},
		{"rm /..", []string{"rm", "-r", "/.."}, "", true},
		{"rm -rf ~", []string{"rm", "-rf", "~"}, "", true},
		{"rm ~/", []string{"rm", "-r", "~/"}, "", true},
		{"rm ~user", []string{"rm", "~user"}, "", true},
		{"rm -r . at root", []string{"rm", "-r", "."}, "", true},
		{"rm -r .. from dir", []string{"rm", "-r", ".."}, "dir", true},
		{"rm root absolute", []string{"rm", "-rf", root}, "", true},
		{"rm parent of root", []string{"rm", "-rf", ".."}, "", true},
		{"rm flags after", []string{"rm", "/", "-rf"}, "", true},
		{"rm after --", []string{"rm", "--", "/"}, "", true},
		{"rm through uplink", []string{"rm", "-r", "uplink"}, "", true},
		{"chmod -R 777 /", []string{"chmod", "-R", "777", "/"}, "", true},
		{"chmod --recursive root", []string{"chmod", "--recursive", "u+w", "."}, "", true},
		{"chmod -vR", []string{"chmod", "-vR", "755", "/"}, "", true},
		{"chown -R root", []string{"chown", "-R", "me", root}, "", true},
		{"chgrp -R ~", []string{"chgrp", "-R", "g", "~"}, "", true},
		{"sudoedit", []string{"sudoedit", "/etc/hosts"}, "", true},
		{"mke2fs", []string{"mke2fs", "/dev/sda1"}, "", true},
		{"mkswap", []string{"mkswap", "/dev/sda2"}, "", true},
		{"wipefs", []string{"wipefs", "-a", "/dev/sda"}, "", true},
		{"taskset MASK sudo", []string{"taskset", "0x1", "sudo", "x"}, "", true},
		{"taskset -c LIST sudo", []string{"taskset", "-c", "0-3", "sudo", "x"}, "", true},
		{"taskset -a MASK dd", []string{"taskset", "-a", "1", "dd", "of=x"}, "", true},
		{"chrt PRIO sudo", []string{"chrt", "10", "sudo", "x"}, "", true},
		{"chrt -f PRIO sudo", []string{"chrt", "-f", "10", "sudo", "x"}, "", true},
		{"chrt -d -T -P -D sudo", []string{"chrt", "-d", "-T", "5", "-P", "10", "-D", "10", "0", "sudo"}, "", true},
		{"chrt --sched-runtime sudo", []string{"chrt", "-d", "--sched-runtime", "5", "0", "mkfs"}, "", true},
		{"setpriv sudo", []string{"setpriv", "sudo", "x"}, "", true},
		{"setpriv --reuid sudo", []string{"setpriv", "--reuid", "1000", "--nnp", "sudo", "x"}, "", true},
		{"setpriv --reuid= sudo", []string{"setpriv", "--reuid=1000", "--init-groups", "dd"}, "", true},
		{"script -c sudo", []string{"script", "-c", "sudo x"}, "", true},
		{"script -qc after ;", []string{"script", "-qc", "ls; sudo x", "log"}, "", true},
		{"script -cATTACHED", []string{"script", "-csudo", "log"}, "", true},
		{"script --command", []string{"script", "--command", "rm -rf /", "log"}, "", true},
		{"script --command=", []string{"script", "-q", "--command=sudo x"}, "", true},
		{"script -O log -c", []string{"script", "-O", "log", "-c", "'sudo' x"}, "", true},
		{"flock FILE -c sudo", []string{"flock", "f", "-c", "sudo x"}, "", true},
		{"flock FILE --command", []string{"flock", "-w", "5", "f", "--command", "echo hi && dd of=x"}, "", true},
		{"flock FILE cmd", []string{"flock", "f", "sudo", "x"}, "", true},
		{"flock -n FILE cmd", []string{"flock", "-n", "-E", "3", "f", "mkswap", "/dev/x"}, "", true},
		{"flock in env", []string{"env", "flock", "f", "-c", "wipefs /dev/x"}, "", true},
		// Options with an optional value never take the next word, and
		// abbreviations of long options are read as the wrapper reads them.
		{"env --default-signal sudo", []string{"env", "--default-signal", "sudo", "x"}, "", true},
		{"env --block-signal sudo", []string{"env", "--block-signal", "sudo", "x"}, "", true},
		{"env --ch abbreviation", []string{"env", "--ch", "/", "rm", "-rf", "."}, "", true},
		{"env -C / rm .", []string{"env", "-C", "/", "rm", "-rf", "."}, "", true},
		{"env --chdir=/ rm .", []string{"env", "--chdir=/", "rm", "-r", "."}, "", true},
		{"env -C .. rm . at the root's parent", []string{"env", "-C", "..", "rm", "-r", "."}, "", true},
		{"env --sp abbreviation of --split-string", []string{"env", "--sp", "sudo ls"}, "", true},
		{"env --split= abbreviation", []string{"env", "--split=sudo ls"}, "", true},
		{"env unknown option then sudo", []string{"env", "-P", "/usr/bin", "sudo", "x"}, "", true},
		{"timeout --sig abbreviation", []string{"timeout", "--sig", "KILL", "5", "sudo"}, "", true},
		{"nice --5 sudo", []string{"nice", "--5", "sudo"}, "", true},
		{"nice -+5 sudo", []string{"nice", "-+5", "sudo"}, "", true},
		{"stdbuf -oL sudo", []string{"stdbuf", "-oL", "sudo", "x"}, "", true},
		{"time -o f sudo", []string{"time", "-o", "f", "sudo"}, "", true},
		{"xargs -i sudo", []string{"xargs", "-i", "sudo", "x"}, "", true},
		{"xargs -ln sudo", []string{"xargs", "-ln", "sudo", "x"}, "", true},
		{"xargs -e sudo", []string{"xargs", "-e", "sudo", "x"}, "", true},
		{"xargs --replace sudo", []string{"xargs", "--replace", "sudo", "x"}, "", true},
		{"xargs --eof sudo", []string{"xargs", "--eof", "sudo", "x"}, "", true},
		{"xargs --arg abbreviation of --arg-file", []string{"xargs", "--arg", "f", "sudo", "x"}, "", true},
		{"xargs --max-a abbreviation", []string{"xargs", "--max-a", "1", "sudo"}, "", true},
		{"script --comm abbreviation", []string{"script", "--comm", "sudo x", "log"}, "", true},
		{"allowed: env -C sub rm -r .", []string{"env", "-C", "dir", "rm", "-r", "."}, "", false},
		{"allowed: xargs -0 grep sudo", []string{"xargs", "-0", "grep", "sudo"}, "", false},
		{"allowed: xargs --null grep sudo", []string{"xargs", "--null", "grep", "sudo"}, "", false},
		{"xargs unknown option then sudo", []string{"xargs", "-Z", "x", "sudo"}, "", true},
		{"chrt unknown long option then sudo", []string{"chrt", "--what", "x", "1", "sudo"}, "", true},
		{"many unknown options then sudo", []string{"xargs", "-Z", "-Z", "-Z", "-Z", "-Z", "-Z", "-Z", "-Z", "-Z", "-Z", "x", "sudo"}, "", true},
		{"allowed: xargs --arg f ls", []string{"xargs", "--arg", "f", "ls"}, "", false},
		{"allowed: taskset 1 ls", []string{"taskset", "1", "ls"}, "", false},
		{"allowed: chrt -f 10 ls", []string{"chrt", "-f", "10", "ls"}, "", false},
		{"allowed: setpriv --nnp ls", []string{"setpriv", "--nnp", "ls"}, "", false},
		{"allowed: script -c ls", []string{"script", "-c", "ls -la", "log"}, "", false},
		{"allowed: script log named sudo", []string{"script", "sudo"}, "", false},
		{"allowed: flock FILE -c ls", []string{"flock", "f", "-c", "ls"}, "", false},
		{"allowed: flock FILE ls", []string{"flock", "f", "ls"}, "", false},
		{"allowed: rm -r dir", []string{"rm", "-r", "dir"}, "", false},
		{"allowed: rm a.txt", []string{"rm", "a.txt"}, "", false},
		{"allowed: rm . in subdir", []string{"rm", "-r", "."}, "dir", false},
		{"allowed: chmod 777 . without -R", []string{"chmod", "777", "."}, "", false},
		{"allowed: chmod -R dir", []string{"chmod", "-R", "755", "dir"}, "", false},
		{"allowed: ls", []string{"ls", "-la"}, "", false},
		{"allowed: echo sudo", []string{"echo", "sudo"}, "", false},
		{"allowed: sudoku", []string{"sudoku"}, "", false},
		{"allowed: sh script", []string{"sh", "script.sh"}, "", false},
		{"allowed: env alone", []string{"env"}, "", false},
		{"allowed: timeout 5 ls", []string{"timeout", "5", "ls"}, "", false},
		{"allowed: ddx", []string{"ddx"}, "", false},
		{"empty", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := HardBlock(tt.argv, filepath.Join(root, tt.dir), r)
			if diff := cmp.Diff(tt.block, got != nil); diff != "" {
				t.Fatalf("HardBlock(%q) blocked (-want +got):\n%s%v", tt.argv, diff, got)
			}
			if got != nil && (got.Rule != rules.HardBlock || got.Reason == "" || got.Advice == "") {
				t.Errorf("incomplete rules.Denied %+v", got)
			}
		})
	}
}

func TestHardBlockNilResolver(t *testing.T) {
	t.Parallel()
	if HardBlock([]string{"rm", "-rf", "/"}, "/x", nil) == nil {
		t.Error("rm -rf / not blocked without a resolver")
	}
	if HardBlock([]string{"rm", "-rf", "~"}, "/x", nil) == nil {
		t.Error("rm -rf ~ not blocked without a resolver")
	}
	if HardBlock([]string{"rm", "a"}, "/x", nil) != nil {
		t.Error("rm a blocked without a resolver")
	}
}

func TestWrapper(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv []string
		want bool
	}{
		{[]string{"env"}, true}, {[]string{"env", "ls"}, true}, {[]string{"/usr/bin/env", "ls"}, true},
		{[]string{"xargs"}, true}, {[]string{"nohup", "x"}, true}, {[]string{"timeout", "5", "x"}, true},
		{[]string{"nice", "x"}, true}, {[]string{"ionice", "x"}, true}, {[]string{"stdbuf", "-o0", "x"}, true},
		{[]string{"time", "x"}, true}, {[]string{"command", "x"}, true}, {[]string{"exec", "x"}, true},
		{[]string{"busybox", "ls"}, true}, {[]string{"sh"}, true}, {[]string{"bash", "-c", "x"}, true},
		{[]string{"zsh", "x.sh"}, true}, {[]string{"dash"}, true}, {[]string{"ksh"}, true}, {[]string{"fish"}, true},
		{[]string{"BASH", "-c", "x"}, true},
		{[]string{"python", "-c", "x"}, true}, {[]string{"python3", "-c", "x"}, true}, {[]string{"python3.12", "-c", "x"}, true},
		{[]string{"python3", "-Bc", "x"}, true}, {[]string{"node", "-e", "x"}, true}, {[]string{"node", "--eval", "x"}, true},
		{[]string{"node", "--eval=x"}, true}, {[]string{"node", "-p", "x"}, true}, {[]string{"perl", "-e", "x"}, true},
		{[]string{"perl", "-E", "x"}, true}, {[]string{"perl", "-ne", "x"}, true}, {[]string{"ruby", "-e", "x"}, true},
		{[]string{"sudo", "x"}, true},
		{[]string{"taskset", "1", "ls"}, true}, {[]string{"chrt", "10", "ls"}, true}, {[]string{"setpriv", "ls"}, true},
		{[]string{"script", "-c", "ls"}, true}, {[]string{"script"}, true}, {[]string{"flock", "f", "ls"}, true},
		{[]string{"python3", "script.py"}, false}, {[]string{"python3", "script.py", "-c"}, false},
		{[]string{"node", "app.js"}, false}, {[]string{"perl", "x.pl"}, false}, {[]string{"ls"}, false},
		{[]string{"envsubst"}, false}, {[]string{"pythonx", "-c"}, false}, {nil, false},
	}
	for _, tt := range tests {
		reason, got := Wrapper(tt.argv)
		if got != tt.want {
			t.Errorf("Wrapper(%q) = %v, want %v", tt.argv, got, tt.want)
		}
		if got && reason == "" {
			t.Errorf("Wrapper(%q): empty reason", tt.argv)
		}
	}
}

// TestWrapperReasonNamesProgram: the reason names the program as the
// model wrote it (python3 -c, not python -c).
func TestWrapperReasonNamesProgram(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"python3", "-c", "x"}, "python3 -c runs code"},
		{[]string{"python3.12", "-Bc", "x"}, "python3.12 -Bc runs code"},
		{[]string{"/usr/bin/python3", "-c", "x"}, "python3 -c runs code"},
		{[]string{"python", "-c", "x"}, "python -c runs code"},
		{[]string{"node", "--eval=x"}, "node --eval runs code"},
	} {
		reason, _ := Wrapper(c.argv)
		if !strings.HasPrefix(reason, c.want) {
			t.Errorf("Wrapper(%q) reason = %q, want it to start with %q", c.argv, reason, c.want)
		}
	}
}
