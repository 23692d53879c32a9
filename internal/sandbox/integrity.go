package sandbox

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/clada/clada/internal/atomicfile"
)

// Bounds of a [Snapshot]: how many entries it records, and how much
// content it keeps to restore. Past them it still notices changes (by
// hash), but cannot undo them.
const (
	snapshotMaxEntries = 2000
	snapshotMaxFile    = 1 << 20
	snapshotMaxBytes   = 8 << 20
)

// QuarantineSuffix is appended to the name of a file or directory that
// appeared during a command in a place the integrity check watches
// (.git/hooks/, .clada/, or .git itself where there was none): renamed,
// it is inert (git runs hooks, and clada reads its files, by exact name)
// and nothing is lost.
const QuarantineSuffix = ".quarantined-by-clada"

// Snapshot records what of .git and .clada a command must not change, so
// that [Snapshot.Check] can tell, after it ran, what it changed and put
// it back: the kind of .git (directory, "gitdir:" file, symbolic link or
// none), .git/config, .git/config.worktree, everything in .git/hooks/,
// and everything in .clada/ except clada's own output store (out/) and
// lock files. It is taken for every command, confined or not: it is the
// last wall where the kernel has none, and a check on the others.
type Snapshot struct {
	root    string
	entries map[string]*entry // slash-separated path relative to root → entry
	dirs    []string          // watched directories: new entries there are changes
	kept    int64             // content bytes kept
	partial bool              // past snapshotMaxEntries: later entries not recorded
	gitOnly bool              // Check leaves .clada alone (GitOnly)
	newRepo bool              // a .git where there was none is no change (NewRepository)
}

type entry struct {
	mode fs.FileMode // type and permission bits; 0 when absent
	data []byte      // content of a regular file (or link target), when kept
	sum  [32]byte    // sha256 of the content
	big  bool        // content not kept: too large
}

// TakeSnapshot records the watched state of root/.git and root/.clada.
func TakeSnapshot(root string) *Snapshot {
	s := &Snapshot{root: root, entries: map[string]*entry{}}
	git := s.record(".git")
	if git.mode.IsDir() {
		s.record(".git/config")
		s.record(".git/config.worktree")
		if s.record(".git/hooks").mode.IsDir() {
			s.walk(".git/hooks")
		}
	}
	if s.record(".clada").mode.IsDir() {
		s.walk(".clada")
	} else {
		// clada may create .clada/ while the command runs (its output
		// store); entries other than that are still changes.
		s.dirs = append(s.dirs, ".clada")
	}
	return s
}

// record notes the state of rel and returns it.
func (s *Snapshot) record(rel string) *entry {
	e := &entry{}
	s.entries[rel] = e
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil {
		return e
	}
	e.mode = fi.Mode()
	switch {
	case fi.Mode().IsRegular():
		s.readContent(e, p, fi.Size())
	case fi.Mode()&fs.ModeSymlink != 0:
		if t, err := os.Readlink(p); err == nil {
			e.data = []byte(t)
			e.sum = sha256.Sum256(e.data)
		}
	}
	return e
}

func (s *Snapshot) readContent(e *entry, p string, size int64) {
	f, err := os.Open(p)
	if err != nil {
		return
	}
	defer f.Close()
	if size <= snapshotMaxFile && s.kept+size <= snapshotMaxBytes {
		data, err := io.ReadAll(io.LimitReader(f, snapshotMaxFile+1))
		if err == nil && len(data) <= snapshotMaxFile {
			e.data = data
			e.sum = sha256.Sum256(data)
			s.kept += int64(len(data))
			return
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return
		}
	}
	h := sha256.New()
	_, _ = io.Copy(h, f)
	copy(e.sum[:], h.Sum(nil))
	e.big = true
}

// walk records everything below the watched directory rel, without
// following symbolic links.
func (s *Snapshot) walk(rel string) {
	s.dirs = append(s.dirs, rel)
	entries, err := os.ReadDir(filepath.Join(s.root, filepath.FromSlash(rel)))
	if err != nil {
		return
	}
	for _, d := range entries {
		child := rel + "/" + d.Name()
		if ignored(child) {
			continue
		}
		if len(s.entries) >= snapshotMaxEntries {
			s.partial = true
			return
		}
		if s.record(child).mode.IsDir() {
			s.walk(child)
		}
	}
}

func isClada(rel string) bool { return rel == ".clada" || strings.HasPrefix(rel, ".clada/") }

// ignored reports the paths clada itself writes while commands run: its
// output store, its decision log (internal/decisionlog, which says why a
// command cannot write it) and lock files.
func ignored(rel string) bool {
	return rel == ".clada/out" || strings.HasPrefix(rel, ".clada/out/") ||
		rel == ".clada/log" || strings.HasPrefix(rel, ".clada/log/") || strings.HasSuffix(rel, ".lock")
}

// Change is one thing a command changed in .git or .clada.
type Change struct {
	// Path is relative to the root, slash-separated: ".git/config".
	Path string
	// What happened: "created", "modified", "removed", "given other
	// permissions", "replaced" (now another kind of file).
	What string
	// Undo says what the check did about it: "restored", "renamed to
	// NAME", or why it could not ("not restored: …").
	Undo string
	// Undone reports that the change was undone.
	Undone bool
}

// String is the change as the report shows it.
func (c Change) String() string {
	return fmt.Sprintf("%s was %s during the command: %s", c.Path, c.What, c.Undo)
}

// GitOnly makes Check look at .git alone. For a command the kernel
// confined, .clada was read-only to it: a change there can only come
// from clada itself (an `always` answered to another clada running at the
// same time), which Check must not undo.
//
// It has no effect when .clada was not a directory when the snapshot was
// taken (missing, or a symbolic link): the sandbox protected nothing
// there, so what appeared in it is still checked and quarantined.
func (s *Snapshot) GitOnly() {
	if e := s.entries[".clada"]; e != nil && e.mode.IsDir() {
		s.gitOnly = true
	}
}

// NewRepository makes Check accept a .git that appears where there was
// none: the command was a git command a person approved to change the
// repository (git init). A .git that was there stays watched.
func (s *Snapshot) NewRepository() { s.newRepo = true }

// Check compares .git and .clada with the snapshot, undoes what it can
// (restores content and permissions it kept, renames what appeared with
// [QuarantineSuffix]) and returns every change, in path order; nil when
// nothing changed.
func (s *Snapshot) Check() []Change {
	var changes []Change
	paths := make([]string, 0, len(s.entries))
	for p := range s.entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	lost := "" // a directory that could not be restored: its entries go with it
	for _, rel := range paths {
		if lost != "" && strings.HasPrefix(rel, lost+"/") {
			continue
		}
		if s.gitOnly && isClada(rel) {
			continue
		}
		if c, ok := s.compare(rel, s.entries[rel]); ok {
			changes = append(changes, c)
			if !c.Undone && s.entries[rel].mode.IsDir() {
				lost = rel
			}
		}
	}
	changes = append(changes, s.created()...)
	if s.partial {
		// Unrecorded entries cannot be told apart from new ones: say
		// so once rather than quarantine them.
		changes = append(changes, Change{Path: ".clada", What: "not fully checked",
			Undo: fmt.Sprintf("more than %d entries; only the first were compared", snapshotMaxEntries)})
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes
}

// compare checks one recorded entry against the file system now.
func (s *Snapshot) compare(rel string, e *entry) (Change, bool) {
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	now := fs.FileMode(0)
	if err == nil {
		now = fi.Mode()
	}
	c := Change{Path: rel}
	switch {
	case e.mode == 0 && now == 0:
		return c, false
	case e.mode == 0:
		// Appeared where nothing was: .git, .git/config,
		// .git/config.worktree, .git/hooks or .clada itself.
		if rel == ".clada" {
			return c, false // its new entries are checked one by one
		}
		if rel == ".git" && s.newRepo {
			return c, false // git init, approved by a person
		}
		c.What = "created"
		s.quarantine(&c, p)
		return c, true
	case now == 0:
		c.What = "removed"
		s.restore(&c, p, e)
		return c, true
	case now.Type() != e.mode.Type():
		c.What = "replaced"
		if now.IsDir() || e.mode.IsDir() {
			c.Undo = "not restored: it is " + kind(now) + " now, and was " + kind(e.mode) + "; move it away and restore it by hand"
			return c, true
		}
		s.restore(&c, p, e)
		return c, true
	}
	if e.mode.IsRegular() || e.mode&fs.ModeSymlink != 0 {
		if !s.sameContent(p, e, fi) {
			c.What = "modified"
			s.restore(&c, p, e)
			return c, true
		}
	}
	if now.Perm() != e.mode.Perm() && e.mode&fs.ModeSymlink == 0 {
		c.What = "given other permissions"
		if err := os.Chmod(p, e.mode.Perm()); err != nil {
			c.Undo = "not restored: " + errText(err)
		} else {
			c.Undo, c.Undone = fmt.Sprintf("permissions restored to %v", e.mode.Perm()), true
		}
		return c, true
	}
	return c, false
}

func (s *Snapshot) sameContent(p string, e *entry, fi fs.FileInfo) bool {
	if e.mode&fs.ModeSymlink != 0 {
		t, err := os.Readlink(p)
		return err == nil && t == string(e.data)
	}
	if !e.big && fi.Size() != int64(len(e.data)) {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if !e.big {
		data, err := io.ReadAll(io.LimitReader(f, int64(len(e.data))+1))
		return err == nil && bytes.Equal(data, e.data)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return bytes.Equal(h.Sum(nil), e.sum[:])
}

// restore puts back a file or symbolic link whose content was kept; a
// directory that was removed is made again (its recorded entries are
// restored on their own).
func (s *Snapshot) restore(c *Change, p string, e *entry) {
	switch {
	case e.mode.IsDir():
		if err := os.Mkdir(p, e.mode.Perm()); err != nil {
			c.Undo = "not restored: " + errText(err)
			return
		}
	case e.big || (e.data == nil && e.mode.IsRegular() && e.sum == [32]byte{}):
		c.Undo = "not restored: its content was too large to keep"
		return
	case e.mode&fs.ModeSymlink != 0:
		if err := removeFile(p); err != nil {
			c.Undo = "not restored: " + errText(err)
			return
		}
		if err := os.Symlink(string(e.data), p); err != nil {
			c.Undo = "not restored: " + errText(err)
			return
		}
	default:
		if err := atomicfile.Write(p, e.data, atomicfile.Options{Perm: e.mode.Perm()}); err != nil {
			c.Undo = "not restored: " + errText(err)
			return
		}
	}
	c.Undo, c.Undone = "restored", true
}

// created finds entries that appeared in the watched directories and
// renames each out of the way.
func (s *Snapshot) created() []Change {
	var out []Change
	for _, dir := range s.dirs {
		if s.gitOnly && isClada(dir) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(s.root, filepath.FromSlash(dir)))
		if err != nil {
			continue
		}
		for _, d := range entries {
			rel := dir + "/" + d.Name()
			if _, known := s.entries[rel]; known || ignored(rel) || strings.HasSuffix(rel, QuarantineSuffix) {
				continue
			}
			if s.partial {
				continue
			}
			c := Change{Path: rel, What: "created"}
			s.quarantine(&c, filepath.Join(s.root, filepath.FromSlash(rel)))
			out = append(out, c)
		}
	}
	return out
}

// quarantine renames p to p+QuarantineSuffix (numbered when taken).
func (s *Snapshot) quarantine(c *Change, p string) {
	target := p + QuarantineSuffix
	for i := 2; ; i++ {
		if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if i > 100 {
			c.Undo = "not undone: too many quarantined copies; remove it by hand"
			return
		}
		target = fmt.Sprintf("%s%s.%d", p, QuarantineSuffix, i)
	}
	if err := os.Rename(p, target); err != nil {
		c.Undo = "not undone: " + errText(err) + "; remove it by hand"
		return
	}
	rel, _ := filepath.Rel(s.root, target)
	c.Undo, c.Undone = "renamed to "+filepath.ToSlash(rel), true
}

// kind names a file's type for the report.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a file"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// errText is the innermost message of err ("operation not permitted"),
// without the operation and path the caller states itself.
func errText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

func removeFile(p string) error {
	err := os.Remove(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
