package specs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A GrantedDir is a directory outside the project root that the person
// granted in config.toml (dirs = [...]): paths inside it count as paths
// inside the root for reading, and for writing too when Write is set.
// Its .git and .clada stay protected as the root's are.
type GrantedDir struct {
	Path  string // absolute, symlinks resolved
	Write bool
}

// Grant adds granted directories to r. Each must be absolute and
// symlink-free (see [ResolveGrantedDir]).
func (r *Resolver) Grant(dirs []GrantedDir) *Resolver {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.granted = append(r.granted, dirs...)
	return r
}

// Granted returns the granted directories.
func (r *Resolver) Granted() []GrantedDir {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]GrantedDir(nil), r.granted...)
}

// ResolveGrantedDir makes p, a dirs = [...] entry of a config file, an
// absolute symlink-free directory: "~/x" is below home, a relative path is
// relative to root. It must exist, be a directory, and not be "/" (which
// would grant everything).
func ResolveGrantedDir(root, home, p string) (string, error) {
	q := p
	switch {
	case q == "~" || strings.HasPrefix(q, "~/"):
		if home == "" {
			return "", fmt.Errorf("%s: the home directory is unknown", p)
		}
		q = filepath.Join(home, q[1:])
	case strings.HasPrefix(q, "~"):
		return "", fmt.Errorf("%s: only ~/ (your home directory) is understood, not ~user", p)
	case !filepath.IsAbs(q):
		q = filepath.Join(root, q)
	}
	real, err := filepath.EvalSymlinks(q)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, errors.Unwrap(err))
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	real = filepath.Clean(real)
	if filepath.Dir(real) == real {
		return "", fmt.Errorf("%s is the file system's root: grant the directories you need, not all of them", p)
	}
	return real, nil
}

// grantFor returns the granted directory that holds res (the innermost),
// and whether there is one.
func (r *Resolver) grantFor(res string) (GrantedDir, bool) {
	var best GrantedDir
	found := false
	for _, g := range r.granted {
		if within(g.Path, res) && (!found || len(g.Path) > len(best.Path)) {
			best, found = g, true
		}
	}
	return best, found
}

// CollectOutsideReads makes [Resolver.Confine] accept, until
// [Resolver.OutsideReads] is called, a path read (write false) that lies
// outside the root and every granted directory: it is recorded instead of
// refused, so that the caller can ask the person about it (rule
// read-outside). Only Confine with write false does so; Resolve, and so
// every check that follows symlinks in a tree, a directory a program
// changes to, or what a command destroys, stays confined.
func (r *Resolver) CollectOutsideReads() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collecting = true
	r.outside = nil
}

// OutsideReads stops collecting and returns the reads outside recorded
// since [Resolver.CollectOutsideReads], in order, each once.
func (r *Resolver) OutsideReads() []Path {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collecting = false
	out := r.outside
	r.outside = nil
	return out
}

// outsideRead records a read of p, resolved to res outside the root, when
// collecting; it reports whether it did.
func (r *Resolver) outsideRead(p, res string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.collecting {
		return false
	}
	for _, o := range r.outside {
		if o.Resolved == res && o.Arg == p {
			return true
		}
	}
	r.outside = append(r.outside, Path{Arg: p, Resolved: res})
	return true
}
