package specs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clada/clada/internal/rules"
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
// denied (rules.ProtectedPath). With a target_self flag (cp -T, mv -T) that
// directory is the last path itself; otherwise, for a recursive copy, it is
// DEST/NAME of each source when DEST is a directory, or DEST when it is not
// one yet (then there is nothing to walk). dest and srcs are as written.
//
// Then, for a recursive copy, each source must hold no symlink (see
// [Resolver.checkSource]).
func (sp *spec) checkTrees(p parsed, paths []string, dir string, r *Resolver) error {
	srcs, err := sp.checkDest(p, paths, dir, r)
	if err != nil || !p.any(sp.walkTarget) {
		return err
	}
	for _, src := range srcs {
		if err := r.checkSource(dir, src); err != nil {
			return err
		}
	}
	return nil
}

// checkDest is the destination half of checkTrees; it returns the sources.
func (sp *spec) checkDest(p parsed, paths []string, dir string, r *Resolver) ([]string, error) {
	walk, self := p.any(sp.walkTarget), p.any(sp.targetSelf)
	if !walk && !self {
		return nil, nil
	}
	dest, srcs := p.destination(paths)
	switch {
	case dest == "" && !p.target:
		return nil, nil // cp -r with one operand fails
	case dest == "":
		return srcs, nil
	}
	res, err := r.Confine(dir, dest, true)
	if err != nil {
		return nil, err
	}
	if !isDir(res) {
		return srcs, nil
	}
	if self && !p.target {
		return srcs, r.walkTree(dest, res, maxTreeEntries)
	}
	if !walk {
		return srcs, nil
	}
	for _, src := range srcs {
		name := sp.destName(p, src)
		t, err := r.Confine(res, name, true)
		if err != nil {
			return nil, err
		}
		if isDir(t) {
			if err := r.walkTree(filepath.Join(dest, name), t, maxTreeEntries); err != nil {
				return nil, err
			}
		}
	}
	return srcs, nil
}

// checkSource denies a source of a recursive copy that is, or holds, a
// symlink: cp -r copies symlinks as they are (the operand itself too, unless
// written with a trailing slash), and a relative link with ".." copied to
// a shallower place points elsewhere, maybe out of the project or into
// .git/. src is as written, relative to dir; it is already confined.
func (r *Resolver) checkSource(dir, src string) error {
	p := src
	if !filepath.IsAbs(p) {
		// Not filepath.Join, which would apply ".." lexically: the
		// kernel, as cp does, follows symlinks before "..".
		p = dir + string(filepath.Separator) + p
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return nil // cp fails on a missing source
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		what := "a symlink"
		if t, err := os.Readlink(p); err == nil {
			what = "a symlink (-> " + t + ")"
		}
		return sourceLinkError(src, src+" is "+what)
	}
	if !fi.IsDir() {
		return nil
	}
	res, err := r.Resolve(dir, src)
	if err != nil {
		return err
	}
	return r.walk1(src, res, maxTreeEntries, true)
}

func sourceLinkError(src, what string) *rules.Denied {
	return &rules.Denied{
		Rule:   rules.ProtectedPath,
		Word:   src,
		Reason: what + "; a recursive copy copies symlinks as they are, and a relative one then points elsewhere, maybe out of the project or into .git/",
		Advice: "copy without the links (copy the files themselves, or a directory without symlinks), or ask the person",
	}
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
	return r.walk1(arg, res, limit, false)
}

// walk1 is walkTree; with source set (the source of a recursive copy,
// which is read, not written) only a symlink below res is denied.
func (r *Resolver) walk1(arg, res string, limit int, source bool) error {
	n := 0
	var found *rules.Denied
	deny := func(path, what string) {
		rel, err := filepath.Rel(r.root, path)
		if err != nil {
			rel = path
		}
		found = &rules.Denied{
			Rule:   rules.ProtectedPath,
			Word:   arg,
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
			if source {
				rel, err := filepath.Rel(r.root, path)
				if err != nil {
					rel = path
				}
				found = sourceLinkError(arg, arg+" holds "+what+" "+rel)
				return fs.SkipAll
			}
			deny(path, what)
			return fs.SkipAll
		case source:
			return nil
		case d.IsDir() && ProtectedName(d.Name()) != "":
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
	case errors.Is(err, errTreeTooLarge) && source:
		return &rules.Denied{
			Rule:   rules.ProtectedPath,
			Word:   arg,
			Reason: fmt.Sprintf("%s is too large to check (more than %d entries) for symlinks that a recursive copy would copy as they are", arg, limit),
			Advice: "copy smaller directories, or ask the person",
		}
	case err != nil && source:
		return &rules.Denied{
			Rule:   rules.ProtectedPath,
			Word:   arg,
			Reason: fmt.Sprintf("%s could not be checked for symlinks that a recursive copy would copy as they are: %v", arg, err),
			Advice: "copy smaller directories, or ask the person",
		}
	case errors.Is(err, errTreeTooLarge):
		return &rules.Denied{
			Rule:   rules.ProtectedPath,
			Word:   arg,
			Reason: fmt.Sprintf("%s already exists and is too large to check (more than %d entries) for symlinks that a copy would write through", arg, limit),
			Advice: "copy to a new directory that does not exist yet",
		}
	case err != nil:
		return &rules.Denied{
			Rule:   rules.ProtectedPath,
			Word:   arg,
			Reason: fmt.Sprintf("%s already exists and could not be checked for symlinks that a copy would write through: %v", arg, err),
			Advice: "copy to a new directory that does not exist yet",
		}
	}
	return nil
}

// checkLinks applies walk_links: a program that walks a directory operand
// and follows the symlinks it meets there (gofmt and go fmt open a
// symlinked x.go, and -w writes through it; they do not descend into a
// symlinked directory) would read or write wherever such a link points.
// So each directory operand (a Go package pattern's "dir/..." is dir; with
// no operand, the working directory) is walked without following
// symlinks, at most maxTreeEntries entries, and every symlink below it
// whose name ends with a walk_links suffix must resolve inside the root,
// and, when the command writes, outside .git/ and .clada/. paths are as written, relative to dir,
// and already confined themselves.
func (sp *spec) checkLinks(paths []string, dir string, write bool, r *Resolver) error {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, arg := range paths {
		p := strings.TrimSuffix(arg, "/...")
		if p == "..." {
			p = "."
		}
		res, err := r.Resolve(dir, p)
		if err != nil {
			return err
		}
		if !isDir(res) {
			continue
		}
		n := 0
		var found error
		err = filepath.WalkDir(res, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if n++; n > maxTreeEntries {
				return errTreeTooLarge
			}
			if d.Type()&fs.ModeSymlink == 0 || !slices.ContainsFunc(sp.walkLinks, func(suf string) bool { return strings.HasSuffix(d.Name(), suf) }) {
				return nil
			}
			if _, err := r.Confine(filepath.Dir(path), filepath.Base(path), write); err != nil {
				rel, rerr := filepath.Rel(r.root, path)
				if rerr != nil {
					rel = path
				}
				de := &rules.Denied{Rule: rules.PathOutsideRoot, Reason: err.Error()}
				errors.As(err, &de)
				found = &rules.Denied{
					Rule:   de.Rule,
					Word:   arg,
					Reason: fmt.Sprintf("%s holds the symlink %s, which %s follows when it reads the directory: %s", arg, rel, sp.name, de.Reason),
					Advice: "name the files inside the project instead of the directory, or ask the person",
				}
				return fs.SkipAll
			}
			return nil
		})
		switch {
		case found != nil:
			return found
		case errors.Is(err, errTreeTooLarge):
			return &rules.Denied{
				Rule:   rules.ProtectedPath,
				Word:   arg,
				Reason: fmt.Sprintf("%s is too large to check (more than %d entries) for symlinks that %s would follow", arg, maxTreeEntries, sp.name),
				Advice: "name smaller directories or the files themselves",
			}
		case err != nil:
			return &rules.Denied{
				Rule:   rules.ProtectedPath,
				Word:   arg,
				Reason: fmt.Sprintf("%s could not be checked for symlinks that %s would follow: %v", arg, sp.name, err),
				Advice: "name the files themselves",
			}
		}
	}
	return nil
}
