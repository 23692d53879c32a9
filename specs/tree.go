package specs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxTreeEntries bounds the walk of a destination tree; a larger tree is
// denied rather than checked for minutes.
const maxTreeEntries = 10000

// errTreeTooLarge stops filepath.WalkDir at the bound.
var errTreeTooLarge = errors.New("too large")

// checkTrees applies walk_target and target_self: a recursive copy (cp -r,
// cp -a) into an existing directory writes every file below it, following
// the symlinks it meets there (cp -s once made dst/src/config -> .git/config,
// and cp -r src dst then wrote .git/config). So every existing directory the
// command writes into as a whole is walked without following symlinks, and
// any symlink, hard-linked file or .git/.clada directory below it is
// denied (RuleProtectedPath). With a target_self flag (cp -T, mv -T) that
// directory is the last path itself; otherwise, for a recursive copy, it is
// DEST/NAME of each source when DEST is a directory, or DEST when it is not
// one yet (then there is nothing to walk). dest and srcs are as written.
func (sp *spec) checkTrees(p parsed, paths []string, dir string, r *Resolver) error {
	walk, self := p.any(sp.walkTarget), p.any(sp.targetSelf)
	if !walk && !self {
		return nil
	}
	var dest string
	srcs := paths
	switch {
	case p.target:
		for _, fp := range p.flagPaths {
			if fp.write {
				dest = fp.arg
			}
		}
	case len(paths) >= 2:
		dest, srcs = paths[len(paths)-1], paths[:len(paths)-1]
	default:
		return nil
	}
	if dest == "" {
		return nil
	}
	res, err := r.Confine(dir, dest, true)
	if err != nil {
		return err
	}
	if !isDir(res) {
		return nil
	}
	if self && !p.target {
		return r.walkTree(dest, res, maxTreeEntries)
	}
	if !walk {
		return nil
	}
	for _, src := range srcs {
		name := baseName(src)
		t, err := r.Confine(res, name, true)
		if err != nil {
			return err
		}
		if isDir(t) {
			if err := r.walkTree(filepath.Join(dest, name), t, maxTreeEntries); err != nil {
				return err
			}
		}
	}
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// walkTree walks res (resolved; arg as the model wrote it) without
// following symlinks, and denies a symlink, a regular file with more than
// one hard link, or a directory named .git or .clada below it, or more
// than limit entries.
func (r *Resolver) walkTree(arg, res string, limit int) error {
	n := 0
	var found *DeniedError
	deny := func(path, what string) {
		rel, err := filepath.Rel(r.root, path)
		if err != nil {
			rel = path
		}
		found = &DeniedError{
			Rule:   RuleProtectedPath,
			Arg:    arg,
			Reason: fmt.Sprintf("%s already exists and holds %s %s; copying or moving into it would write through it, maybe into .git/ or .clada/ or out of the project", arg, what, rel),
			Advice: "copy to a new directory that does not exist yet, or ask the person to remove " + rel,
		}
	}
	err := filepath.WalkDir(res, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		if n > limit {
			return errTreeTooLarge
		}
		if path == res {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			what := "the symlink"
			if t, err := os.Readlink(path); err == nil {
				what = "the symlink (-> " + t + ")"
			}
			deny(path, what)
			return fs.SkipAll
		case d.IsDir() && (strings.EqualFold(d.Name(), ".git") || strings.EqualFold(d.Name(), ".clada")):
			deny(path, "the protected directory")
			return fs.SkipAll
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if c := linkCount(fi); c > 1 {
				deny(path, fmt.Sprintf("a file with %d hard links,", c))
				return fs.SkipAll
			}
		}
		return nil
	})
	switch {
	case found != nil:
		return found
	case errors.Is(err, errTreeTooLarge):
		return &DeniedError{
			Rule:   RuleProtectedPath,
			Arg:    arg,
			Reason: fmt.Sprintf("%s already exists and is too large to check (more than %d entries) for symlinks that a copy would write through", arg, limit),
			Advice: "copy to a new directory that does not exist yet",
		}
	case err != nil:
		return &DeniedError{
			Rule:   RuleProtectedPath,
			Arg:    arg,
			Reason: fmt.Sprintf("%s already exists and could not be checked for symlinks that a copy would write through: %v", arg, err),
			Advice: "copy to a new directory that does not exist yet",
		}
	}
	return nil
}
