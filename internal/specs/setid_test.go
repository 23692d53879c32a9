package specs

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/clada/clada/internal/rules"
)

// TestSetIDModes: every option of the embedded specs that sets a mode
// keeps clada's promise that no command sets the setuid or setgid bit. A
// mode value is checked as chmod's mode is (mkdir -m, tar --mode); an
// option that copies the mode of a file read (chmod --reference, cp -p,
// -a, --preserve) is denied when that file, or with -a/-r a file below a
// source directory, has either bit; tar's -p, which restores them from an
// archive, is forbidden. The cases that need a file with the bit are here
// rather than in the specs' examples, which must hold on Windows too.
func TestSetIDModes(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no setuid or setgid bits on Windows")
	}
	r, _ := newFixture(t)
	root := r.Root()
	for _, d := range []string{"plain/sub", "setid/sub", "shared"} {
		mustMkdir(t, filepath.Join(root, d))
	}
	for _, f := range []string{"suid", "sgid", "plain/sub/x", "setid/sub/x"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, m := range map[string]os.FileMode{"suid": os.ModeSetuid, "sgid": os.ModeSetgid, "setid/sub/x": os.ModeSetuid, "shared": os.ModeSetgid | os.ModeDir} {
		if err := os.Chmod(filepath.Join(root, f), 0o755|m); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "suid")); err != nil || fi.Mode()&os.ModeSetuid == 0 {
		t.Skipf("this file system keeps no setuid bit (%v)", err)
	}
	s := testSet(t)
	tests := []struct {
		in     string
		want   Outcome
		arg    string // the word the denial names
		reason string // a piece of the reason
	}{
		// chmod --reference copies the whole mode.
		{"chmod --reference=suid a.txt", Deny, "suid", "has the setuid or setgid bit (mode 4755)"},
		{"chmod --reference=sgid a.txt", Deny, "sgid", "mode 2755"},
		{"chmod --reference=shared dir", Deny, "shared", "mode 2755"},
		{"chmod -R --reference suid dir", Deny, "suid", "chmod --reference copies the mode of suid"},
		{"chmod --reference=a.txt b.txt", Allow, "", ""},
		{"chmod --reference=plain/sub/x a.txt", Allow, "", ""},
		{"chmod u-s suid", Allow, "", ""},
		// cp copies the mode with -p, -a and --preserve; without them
		// it drops both bits.
		{"cp -p suid x", Deny, "suid", "cp -p copies the mode of suid"},
		{"cp --preserve suid x", Deny, "suid", ""},
		{"cp --preserve=mode sgid x", Deny, "sgid", "mode 2755"},
		{"cp -a suid x", Deny, "suid", ""},
		{"cp --archive sgid dir", Deny, "sgid", ""},
		{"cp -p a.txt suid dir", Deny, "suid", ""},
		{"cp -p -t dir a.txt sgid", Deny, "sgid", ""},
		{"cp -a setid newdir", Deny, "setid", "setid holds setid/sub/x, which has the setuid or setgid bit (mode 4755)"},
		{"cp -pr setid newdir", Deny, "setid", "setid/sub/x"},
		{"cp -a shared newdir", Deny, "shared", "mode 2755"},
		{"cp -a plain newdir", Allow, "", ""},
		{"cp -p a.txt x", Allow, "", ""},
		{"cp suid x", Allow, "", ""},
		{"cp -r setid newdir", Allow, "", ""},
		{"cp suid sgid dir", Allow, "", ""},
		// Mode values.
		{"mkdir -m 6755 x", Deny, "6755", "mkdir -m 6755 sets the setuid or setgid bit"},
		{"mkdir --mode=g+s x", Deny, "g+s", "mkdir --mode g+s sets"},
		{"mkdir -pm2775 a/b", Deny, "2775", ""},
		{"mkdir -m 755 x", Allow, "", ""},
		{"tar -cf out.tar --mode=u+s a.txt", Deny, "u+s", "tar --mode u+s sets"},
		{"tar -cf out.tar --mode=755 a.txt", Allow, "", ""},
		// tar -p restores the bits of an archive's members.
		{"tar -xpf archive.tar", Deny, "-xpf", "restores the setuid and setgid bits"},
		{"tar --same-permissions -xf archive.tar", Deny, "--same-permissions", ""},
		{"tar -xf archive.tar", Ask, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			argv, err := splitExample(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Check(argv, root, r)
			if got.Outcome != tt.want {
				t.Fatalf("Check(%q) = %s (%s: %s), want %s", tt.in, got.Outcome, got.Rule, got.Reason, tt.want)
			}
			if tt.want != Deny {
				return
			}
			if tt.arg != "" && got.Arg != tt.arg {
				t.Errorf("Arg = %q, want %q", got.Arg, tt.arg)
			}
			if got.Rule != rules.FlagValue && got.Rule != rules.UnknownFlag {
				t.Errorf("Rule = %s, want flag-value (unknown-flag for a forbidden one)", got.Rule)
			}
			if !strings.Contains(got.Reason, tt.reason) || got.Advice == "" {
				t.Errorf("reason %q, advice %q: want a reason with %q, and advice", got.Reason, got.Advice, tt.reason)
			}
		})
	}
	// tar never runs without dropping the bits on extraction.
	argv, _ := splitExample("tar -xf archive.tar")
	if v := s.Check(argv, root, r); !strings.Contains(strings.Join(v.Env, " "), "TAR_OPTIONS=--no-same-permissions") {
		t.Errorf("tar -x runs with env %q, want TAR_OPTIONS=--no-same-permissions", v.Env)
	}
}
