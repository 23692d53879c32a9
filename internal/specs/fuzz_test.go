package specs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCheck: no panic, and nothing allowed names a path outside the root.
// Every Exec argument that is absolute, and every argument that exists
// relative to the root, is checked independently with filepath.EvalSymlinks
// on its longest existing prefix.
func FuzzCheck(f *testing.F) {
	for _, c := range checkCases {
		f.Add(c.in)
	}
	for _, s := range []string{"cat escape/../etc/passwd", "cp -t.git a.txt", "grep -f/etc/passwd x", "tree -Po x .git/config"} {
		f.Add(s)
	}
	s := testSet(f)
	r, _ := newFixture(f)
	root := r.Root()
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Fields(line)
		if len(argv) == 0 || len(argv) > 16 {
			return
		}
		v := s.Check(argv, root, r)
		_ = HardBlock(argv, root, r)
		if v.Outcome != Allow || !pathOperands[argv[0]] {
			return
		}
		sp, err := s.spec(argv[0])
		if err != nil || sp == nil {
			t.Fatalf("%s was allowed without a spec: %v", argv[0], err)
		}
		done := false
		for i, a := range argv[1:] {
			prev := argv[i] // the word before a
			var c string
			switch {
			case done:
				c = a
			case a == "--":
				done = true
				continue
			case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
				name, val, _ := strings.Cut(a, "=")
				if t := sp.flags[name]; t == TypePath || t == TypeOutPath {
					c = val
				}
			case strings.HasPrefix(a, "-"):
				continue
			case strings.HasPrefix(prev, "-") && prev != "--" && !done:
				// Possibly the value of a flag; a path-typed one is
				// covered by the case above when written with "=".
				if t, ok := sp.flags[prev]; !ok || (t != TypePath && t != TypeOutPath) {
					continue
				}
				c = a
			default:
				c = a
			}
			if c != "" && escapes(root, c) {
				t.Fatalf("Check(%q) allowed %q, which escapes %s", argv, c, root)
			}
		}
	})
}

// pathOperands are the commands whose every operand is a path, so that
// the fuzz oracle needs no spec knowledge to find them.
var pathOperands = map[string]bool{
	"cat": true, "wc": true, "ls": true, "rm": true, "touch": true, "mkdir": true, "cp": true, "mv": true,
	"du": true, "df": true, "realpath": true, "file": true, "head": true, "tail": true, "xxd": true, "uniq": true,
	"stat": true, "diff": true, "sort": true, "tree": true,
}

// escapes reports whether p, taken relative to root, lands outside it,
// using only filepath.EvalSymlinks on the longest existing prefix.
func escapes(root, p string) bool { return escapesDepth(root, p, 0) }

func escapesDepth(root, p string, depth int) bool {
	if strings.HasPrefix(p, "~") || depth > 40 {
		return true
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = root + "/" + p
	}
	// Walk the existing prefix component by component with the kernel's
	// view: Lstat each prefix and let EvalSymlinks resolve it.
	parts := strings.Split(abs, "/")
	cur := "/"
	for i, c := range parts {
		if c == "" {
			continue
		}
		next := filepath.Join(cur, c)
		if c == ".." {
			next = filepath.Dir(cur)
		}
		if _, err := os.Lstat(next); err != nil {
			rest := filepath.Join(append([]string{next}, parts[i+1:]...)...)
			return !inside(root, filepath.Clean(rest))
		}
		real, err := filepath.EvalSymlinks(next)
		if err != nil {
			// A dangling link: follow its target by hand, as the
			// kernel would when the command creates the file.
			t, rerr := os.Readlink(next)
			if rerr != nil {
				return true
			}
			if !filepath.IsAbs(t) {
				t = cur + "/" + t
			}
			return escapesDepth(root, strings.Join(append([]string{t}, parts[i+1:]...), "/"), depth+1)
		}
		cur = real
	}
	return !inside(root, cur)
}

func inside(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}
