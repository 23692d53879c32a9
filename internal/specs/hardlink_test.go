package specs

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/clada/clada/internal/rules"
)

// TestHardLinkedWrites: every path a spec lets a command write goes
// through the hard-link check (Resolver.Confine): an operand written,
// an outpath flag's value, a file edited in place, a link ln replaces.
// The fixture's hardlink shares .clada/commands.toml's inode, and
// outlinked a file's outside the project: Landlock checks paths, so a
// confined command writing outlinked would write outside.
func TestHardLinkedWrites(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("link counts are not read on Windows")
	}
	r, base := newFixture(t)
	if err := os.Link(filepath.Join(base, "outside", "secret"), filepath.Join(r.Root(), "outlinked")); err != nil {
		t.Fatal(err)
	}
	s := testSet(t)
	for _, target := range []string{"hardlink", "outlinked"} {
		for _, form := range []string{
			"sort -o %s a.txt", "sort --output=%s a.txt", "xxd -r a.txt %s",
			"tar cf %s a.txt", "tar -rf %s a.txt", "sed -i s/a/b/ %s", "touch %s", "chmod 644 %s",
			"cp a.txt %s", "cp -t . %s", "mv a.txt %s", "ln -f a.txt %s", "ln -sf a.txt %s",
			"gofmt -w %s", "cp a.txt b.txt %s",
		} {
			in := strings.ReplaceAll(form, "%s", target)
			argv, err := splitExample(in)
			if err != nil {
				t.Fatal(err)
			}
			v := s.Check(argv, r.Root(), r)
			if v.Outcome != Deny || v.Rule != rules.ProtectedPath || v.Arg != target {
				t.Errorf("%s: %s (rule %s, %q): %s; want deny, protected-path naming %s", in, v.Outcome, v.Rule, v.Arg, v.Reason, target)
			} else if !strings.Contains(v.Reason, "hard links") || v.Advice == "" {
				t.Errorf("%s: reason %q, advice %q", in, v.Reason, v.Advice)
			}
		}
		// Reading it is fine.
		argv, _ := splitExample("cat " + target)
		if v := s.Check(argv, r.Root(), r); v.Outcome != Allow {
			t.Errorf("cat %s: %s: %s", target, v.Outcome, v.Reason)
		}
	}
}
