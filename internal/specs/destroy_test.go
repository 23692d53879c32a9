package specs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

// TestDestroys: Check lists the existing paths a command deletes or
// replaces; the gateway allows it only when git can restore them.
func TestDestroys(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"dir/sub", "sub/x", "src"} {
		mustMkdir(t, filepath.Join(root, d))
	}
	for _, f := range []string{"a.txt", "b.txt", "dir/a.txt", "sub/x/y.txt", "src/s.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"flink": "a.txt", "dlink": "dir"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	user, err := parseSpecs("test.toml", []byte(`
[commands.edx]
flags = { "-i" = "bool", "--in-place" = "bool" }
edit_flags = ["-i", "--in-place"]
`))
	if err != nil {
		t.Fatal(err)
	}
	s := newSet(user, defaults())
	tests := []struct {
		cmd  string
		want []string // root-relative, "/" after a tree
	}{
		{"rm a.txt", []string{"a.txt"}},
		{"rm nothere", nil},
		{"rm a.txt b.txt", []string{"a.txt", "b.txt"}},
		{"rm -r dir", []string{"dir/"}},
		{"rm -rf dir/sub", []string{"dir/sub/"}},
		{"rm -r dlink", []string{"dlink"}},    // the link, not what it points to
		{"rm -r dlink/", []string{"dir/"}},    // rm -r link/ empties the directory
		{"rm flink", []string{"flink"}},       // the link only
		{"rm -f -- a.txt", []string{"a.txt"}}, // after --
		{"touch a.txt", nil},
		{"mkdir -p dir", nil},
		{"cp b.txt a.txt", []string{"a.txt"}},
		{"cp b.txt flink", []string{"a.txt"}}, // cp writes through the link
		{"cp b.txt new.txt", nil},
		{"cp a.txt dir", []string{"dir/a.txt"}},
		{"cp b.txt dir", nil},
		{"cp a.txt b.txt dir", []string{"dir/a.txt"}},
		{"cp -t dir a.txt", []string{"dir/a.txt"}},
		{"cp -r sub dir", []string{"dir/sub/"}},
		{"cp -r src dir", nil},
		{"cp -T b.txt a.txt", []string{"a.txt"}},
		{"mv b.txt a.txt", []string{"a.txt"}},
		{"mv b.txt flink", []string{"flink"}}, // mv replaces the link itself
		{"mv a.txt dir", []string{"dir/a.txt"}},
		{"mv a.txt dlink", []string{"dir/a.txt"}},
		{"mv -t dir a.txt b.txt", []string{"dir/a.txt"}},
		{"mv b.txt new", nil},
		{"edx a.txt", nil},
		{"edx -i a.txt b.txt", []string{"a.txt", "b.txt"}},
		{"edx --in-place flink", []string{"flink", "a.txt"}}, // the link, and the file with --follow-symlinks
	}
	for _, tt := range tests {
		argv, err := splitExample(tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		v := s.Check(argv, root, r)
		if v.Outcome != Allow {
			if v.Rule == rules.NotFound && argv[0] == "edx" {
				v = s.specs["edx"].check(argv, root, r)
			}
			if v.Outcome != Allow {
				t.Errorf("Check(%q) = %v (%s), want allow", tt.cmd, v.Outcome, v.Reason)
				continue
			}
		}
		var got []string
		for _, d := range v.Destroys {
			rel, err := filepath.Rel(r.Root(), d.Path)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("Check(%q): destroyed %q outside the root", tt.cmd, d.Path)
			}
			if d.Tree {
				rel += "/"
			}
			if d.Arg == "" {
				t.Errorf("Check(%q): destroyed %q without the word", tt.cmd, d.Path)
			}
			got = append(got, filepath.ToSlash(rel))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Check(%q).Destroys (-want +got):\n%s", tt.cmd, diff)
		}
	}
	// An edit flag makes the paths written: never into .git/ or .clada/.
	mustMkdir(t, filepath.Join(root, ".git"))
	if v := s.specs["edx"].check([]string{"edx", "-i", ".git/config"}, root, r); v.Outcome != Deny || v.Rule != rules.ProtectedPath {
		t.Errorf("edx -i .git/config = %v (%s), want deny (protected-path)", v.Outcome, v.Rule)
	}
	if v := s.specs["edx"].check([]string{"edx", ".git/config"}, root, r); v.Outcome != Allow {
		t.Errorf("edx .git/config (a read) = %v (%s), want allow", v.Outcome, v.Reason)
	}
}

func TestDestroysSpecErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ toml, want string }{
		{"[commands.x]\nedit_flags = [\"-i\"]\n", "-i is not in flags"},
		{"[commands.x]\ndestroys = \"all\"\n", "cannot destroy them"},
		{"[commands.x]\nwrites = \"all\"\ndestroys = \"some\"\n", "unknown writes mode"},
		{"[commands.x]\nflags = { \"-t\" = \"path\" }\ntree_flags = [\"-t\"]\n", "-t is not an outpath flag"},
		{"[commands.x]\ntree_flags = [\"-t\"]\n", "-t is not an outpath flag"},
		{"[commands.x]\nbackup_flags = [\"-b\"]\n", "-b is not in flags"},
		{"[commands.x]\nextract_flags = [\"-x\"]\n", "-x is not in flags"},
		{"[commands.x]\nflags = { \"-O\" = \"bool\" }\nextract_keep = [\"-O\"]\n", "needs extract_flags"},
	} {
		_, err := parseSpecs("t.toml", []byte(tt.toml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseSpecs(%q) = %v, want an error containing %q", tt.toml, err, tt.want)
		}
	}
}
