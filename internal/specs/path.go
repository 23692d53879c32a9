package specs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/clada/clada/internal/rules"
)

// maxPath is the longest path clada resolves, in bytes: Linux's PATH_MAX
// less the NUL. A longer name cannot be looked up whole (lstat fails with
// ENAMETOOLONG), while the program, run in a deep directory with a short
// relative path, still follows the symlinks in it.
const maxPath = 4095

// maxLinks bounds symlink expansion in one resolution, as the kernel does
// (Linux allows 40); beyond it the path is refused rather than looped on.
const maxLinks = 40

// Resolver confines paths to one project root. It resolves a path the way
// the kernel will when the command opens it: component by component from
// the base directory, following every symlink (dangling ones too) before a
// following ".." is applied. It never cleans a path lexically first, so
// with escape -> /etc, "escape/../etc/passwd" is /etc/passwd.
//
// A Resolver caches what it learns about names (directories, files,
// symlinks, and names that are missing). The cache is only valid
// while the file system stays as it was: a caller that runs a command
// between two checks must call [Resolver.Reset] after it, or a directory
// that the command replaced by a symlink, or a missing name it created as
// one, would still be seen as before. A Resolver is safe for concurrent use.
type Resolver struct {
	root    string // absolute, symlink-free, cleaned
	windows bool   // apply the Windows path rules (winpath.go); always on Windows

	mu sync.Mutex // guards nodes and bases
	// nodes caches lstat results of absolute symlink-free paths: a
	// symlink (its target, read once) or anything else, missing names
	// included. Valid until the file system changes: call Reset after
	// running a command.
	nodes map[string]node
	// bases caches the resolution of base directories passed to Resolve.
	bases map[string]string
	// granted are the directories outside the root the person granted
	// (grantdirs.go); guarded by mu.
	granted []GrantedDir
	// collecting says that Confine records reads outside in outside
	// instead of refusing them (CollectOutsideReads); guarded by mu.
	collecting bool
	outside    []Path
}

type node struct {
	link   bool
	target string
	nlink  uint64 // hard links of a regular file; 0 for anything else or missing
}

// NewResolver returns a Resolver for root. root is made absolute and its
// symlinks are resolved, so that paths are compared with the real
// location; it must exist.
func NewResolver(root string) (*Resolver, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "resolver", Path: root, Err: errors.New("not a directory")}
	}
	r := &Resolver{root: filepath.Clean(real), nodes: map[string]node{}, bases: map[string]string{}}
	return r.ForWindows(false), nil
}

// Root returns the absolute, symlink-resolved project root.
func (r *Resolver) Root() string { return r.root }

// Reset forgets everything cached. Call it after running a command, which
// may have changed the file system.
func (r *Resolver) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.nodes)
	clear(r.bases)
}

// Resolve resolves p relative to base (absolute) component by component,
// following symlinks (dangling too) before applying "..", and returns the
// absolute resolved path, or a *rules.Denied with rules.PathOutsideRoot when
// it leaves the root (and every granted directory) or starts with "~".
func (r *Resolver) Resolve(base, p string) (string, error) {
	res, err := r.resolveAll(base, p)
	if err != nil {
		return "", err
	}
	return res, nil
}

// resolveAll is Resolve, except that a path outside the root comes back
// resolved, with the *rules.Denied that refuses it.
func (r *Resolver) resolveAll(base, p string) (string, error) {
	asWritten := p
	if r.windows {
		s, derr := windowsPath(p)
		if derr != nil {
			return "", derr
		}
		p = filepath.FromSlash(s)
		if hasDotDot(s) {
			// Windows applies ".." to the text before it follows any
			// link; clada follows links first, as POSIX does. Both
			// readings must name the same file.
			lex := filepath.Clean(p)
			if !filepath.IsAbs(p) {
				lex = windowsLexical(base, s)
			}
			a, errA := r.resolve(base, p)
			b, errB := r.resolve(base, lex)
			if errA == nil && errB == nil && a != b {
				return "", &rules.Denied{
					Rule:   rules.PathOutsideRoot,
					Word:   asWritten,
					Reason: fmt.Sprintf("%s holds .. after a link: Windows applies .. first and reaches %s, while the link leads to %s", asWritten, b, a),
					Advice: "write the path without .. (name the target directly)",
				}
			}
		}
	}
	res, err := r.resolve(base, p)
	if err != nil {
		return "", err
	}
	if !r.inside(res) {
		return res, r.outsideError(asWritten, res)
	}
	return res, nil
}

// outsideError refuses p, which resolves to res outside the root and
// every granted directory.
func (r *Resolver) outsideError(p, res string) *rules.Denied {
	return &rules.Denied{
		Rule:   rules.PathOutsideRoot,
		Word:   p,
		Reason: pathOutsideReason(p, res),
		Advice: "use a path inside the project root " + r.root,
	}
}

func pathOutsideReason(p, res string) string {
	if p == res {
		return p + " is outside the project root"
	}
	return p + " resolves to " + res + ", outside the project root"
}

// Confine is Resolve plus, when write is true, the protected-path check:
// a written path may not be a directory named .git or .clada, nor lie
// inside one, anywhere under the root (nested repositories included). The
// names are compared without regard to case, because on case-insensitive
// file systems (macOS, Windows) .GIT is .git. Nor may a written path be an
// existing regular file with more than one hard link (unix only).
//
// A write inside a granted directory must have a read-write grant; a read
// outside the root and every granted directory is recorded, not refused,
// while the resolver collects such reads ([Resolver.CollectOutsideReads]).
func (r *Resolver) Confine(base, p string, write bool) (string, error) {
	res, err := r.resolveAll(base, p)
	if err != nil {
		var de *rules.Denied
		if !write && res != "" && errors.As(err, &de) && de.Rule == rules.PathOutsideRoot && r.outsideRead(p, res) {
			return res, nil
		}
		return "", err
	}
	if !write {
		return res, nil
	}
	if !within(r.root, res) {
		r.mu.Lock()
		g, _ := r.grantFor(res)
		r.mu.Unlock()
		if !g.Write {
			return "", &rules.Denied{
				Rule:   rules.PathOutsideRoot,
				Word:   p,
				Reason: fmt.Sprintf("%s is in %s, which the person granted for reading only", p, g.Path),
				Advice: "write inside the project; the person can grant the directory for writing (dirs in .clada/config.toml)",
			}
		}
	}
	if name := r.protected(res); name != "" {
		return "", &rules.Denied{
			Rule:   rules.ProtectedPath,
			Word:   p,
			Reason: p + " is inside " + name + "/, which clada never lets a command write",
			Advice: "do not change " + name + "/; ask the person to do it",
		}
	}
	r.mu.Lock()
	n, cached := r.nodes[res]
	r.mu.Unlock()
	if cached && n.nlink <= 1 {
		// Resolve has just looked at res: missing, not a regular file,
		// or a file with one link.
		return res, nil
	}
	if err := hardLinked(p, res); err != nil {
		return "", err
	}
	return res, nil
}

// hardLinked denies writing to res, an existing regular file with more
// than one hard link: the other link may be inside .git/ or .clada/
// (cp -l .clada/commands.toml x, then cp evil x), or outside the project
// (the sandbox checks paths, not inodes), and nothing tells where.
func hardLinked(p, res string) error {
	fi, err := os.Lstat(res)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if n := linkCount(fi); n > 1 {
		return &rules.Denied{
			Rule:   rules.ProtectedPath,
			Word:   p,
			Reason: fmt.Sprintf("%s is a file with %d hard links; writing it changes every link, which may be inside .git/ or .clada/ or outside the project", p, n),
			Advice: "write a new file instead, or ask the person to check the links (ls -li)",
		}
	}
	return nil
}

// agentDirs are the directories where coding agents read their
// settings in a project: Claude Code's .claude/, Gemini CLI's .gemini/,
// Cursor's .cursor/, Codex's .codex/. A command that wrote one could add
// a hook or a permission rule that the agent runs outside clada (a
// Claude Code PreToolUse hook runs unconfined, before clada's), so they
// are protected as .git/ and .clada/ are: the agents' own file tools,
// which ask the person, are the way to change them (issue 28).
var agentDirs = []string{".claude", ".gemini", ".cursor", ".codex"}

// ProtectedName returns the protected directory name that name is
// (".git", ".clada" or an agent's settings directory, compared without
// case), else "".
func ProtectedName(name string) string {
	for _, d := range append([]string{".git", ".clada"}, agentDirs...) {
		if strings.EqualFold(name, d) {
			return d
		}
	}
	return ""
}

// protected returns ".git", ".clada" or an agent's settings directory
// (ProtectedName) when res (inside the root, or a granted directory) is,
// or is inside, such a directory, else "".
func (r *Resolver) protected(res string) string {
	base := r.root
	if !within(r.root, res) {
		r.mu.Lock()
		g, _ := r.grantFor(res)
		r.mu.Unlock()
		base = g.Path
	}
	rel := strings.TrimPrefix(res, base)
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if name := ProtectedName(c); name != "" {
			return name
		}
	}
	return ""
}

// inside reports whether the resolved path res is the root or below it,
// or in a granted directory, comparing whole components (/root/proj2 is
// not inside /root/proj).
func (r *Resolver) inside(res string) bool {
	if within(r.root, res) {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.grantFor(res)
	return ok
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		// "/" or a volume root such as C:\
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root) && p[len(root)] == filepath.Separator
}

func tildeError(p string) error {
	return &rules.Denied{
		Rule:   rules.PathOutsideRoot,
		Word:   p,
		Reason: p + " starts with ~, the home directory, outside the project root",
		Advice: "use a path relative to the project root",
	}
}

// resolve is Resolve without the root check. Errors are *rules.Denied.
func (r *Resolver) resolve(base, p string) (string, error) {
	if strings.HasPrefix(p, "~") {
		return "", tildeError(p)
	}
	if p == "" {
		return "", &rules.Denied{Rule: rules.Spec, Word: p, Reason: "an empty path names no file", Advice: "write the path out"}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", &rules.Denied{Rule: rules.Spec, Word: p, Reason: "a path may not contain NUL", Advice: "write the path out"}
	}
	if len(p) > maxPath {
		return "", tooLong(p, fmt.Sprintf("%s… is %d bytes long, more than the %d clada checks", p[:40], len(p), maxPath))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	links := 0
	var start string
	if filepath.IsAbs(p) {
		vol := filepath.VolumeName(p)
		start, p = vol+string(filepath.Separator), p[len(vol):]
	} else {
		b, ok := r.bases[base]
		if !ok {
			if !filepath.IsAbs(base) {
				return "", &rules.Denied{Rule: rules.PathOutsideRoot, Word: base, Reason: "working directory " + base + " is not absolute", Advice: "pass an absolute directory"}
			}
			var err error
			vol := filepath.VolumeName(base)
			b, err = r.walk(vol+string(filepath.Separator), base[len(vol):], &links)
			if err != nil {
				return "", err
			}
			if len(b) > maxPath {
				return "", tooLong(base, fmt.Sprintf("the working directory resolves to a path of %d bytes, more than the %d clada checks", len(b), maxPath))
			}
			r.bases[base] = b
			links = 0
		}
		start = b
	}
	res, err := r.walk(start, p, &links)
	if err != nil {
		return "", err
	}
	if len(res) > maxPath {
		return "", tooLong(p, fmt.Sprintf("%s resolves to a path of %d bytes, more than the %d clada checks", shortName(p), len(res), maxPath))
	}
	return res, nil
}

// tooLong denies arg, a path clada cannot check whole.
func tooLong(arg, reason string) *rules.Denied {
	return &rules.Denied{Rule: rules.PathOutsideRoot, Word: arg, Reason: reason, Advice: "use a shorter path inside the project"}
}

// shortName abbreviates p for a reason.
func shortName(p string) string {
	if len(p) > 80 {
		return p[:80] + "…"
	}
	return p
}

// missing reports whether err from lstat means the name does not exist:
// a missing file, or a parent that is not a directory. Any other error
// (ENAMETOOLONG, EACCES, EIO, …) hides what the name is, so it is no
// reason to take the name as written.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// lookupError denies p, whose component next could not be looked up.
func lookupError(p, next string, err error) *rules.Denied {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &rules.Denied{
		Rule:   rules.PathOutsideRoot,
		Word:   p,
		Reason: fmt.Sprintf("clada could not check %s (looking up %s: %v), so it cannot tell where it leads", shortName(p), shortName(filepath.Base(next)), err),
		Advice: "use a shorter path inside the project",
	}
}

// walk applies the components of p to cur, a symlink-free absolute path.
func (r *Resolver) walk(cur, p string, links *int) (string, error) {
	sep := string(filepath.Separator)
	rest := p
	for rest != "" {
		var c string
		if i := strings.IndexByte(rest, filepath.Separator); i >= 0 {
			c, rest = rest[:i], rest[i+1:]
		} else {
			c, rest = rest, ""
		}
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := cur + sep + c
		if strings.HasSuffix(cur, sep) {
			next = cur + c // "/" or a volume root C:\
		}
		n, ok := r.nodes[next]
		if !ok {
			fi, err := os.Lstat(next)
			switch {
			case err != nil && missing(err):
				// Missing: nothing to follow; the name is taken as
				// written. Cached like the rest: a command that
				// runs may create it, and the gateway calls Reset
				// after every command it runs.
				r.nodes[next] = n
			case err != nil:
				return "", lookupError(p, next, err)
			case fi.Mode()&fs.ModeSymlink != 0:
				t, err := os.Readlink(next)
				if err != nil {
					return "", lookupError(p, next, err)
				}
				n = node{link: true, target: t}
				r.nodes[next] = n
			default:
				// A directory or a file: nothing to follow.
				if fi.Mode().IsRegular() {
					n.nlink = linkCount(fi)
				}
				r.nodes[next] = n
			}
		}
		if !n.link {
			cur = next
			continue
		}
		*links++
		if *links > maxLinks {
			return "", &rules.Denied{Rule: rules.PathOutsideRoot, Word: p, Reason: "too many levels of symbolic links in " + p, Advice: "use a path without a symlink loop"}
		}
		// A target is followed as the kernel does: "~x" is a file named
		// ~x next to the link, never the home directory.
		from, target := cur, n.target
		if filepath.IsAbs(target) {
			vol := filepath.VolumeName(target)
			from, target = vol+sep, target[len(vol):]
		}
		res, err := r.walk(from, target, links)
		if err != nil {
			return "", err
		}
		cur = res
	}
	return cur, nil
}
