// Package gitstate tells which files of a project git can restore: those
// that are tracked and unmodified. clada allows a command that deletes or
// replaces files (rm, rm -r, mv or cp onto a file, sed -i) only when git
// can bring back everything it destroys.
//
// [Read] runs `git status` and `git ls-files` once, through a [Runner] the
// caller gives (clada runs git hardened, pinned to the project's own
// repository); [State.Lost] then answers for any path without running
// anything. gitstate never changes the repository: status runs with
// optional locks off, so it does not even refresh the index.
package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Runner runs git with args (the words after "git") in the project root
// and returns its standard output.
type Runner func(args ...string) ([]byte, error)

// State is what git knew about the work tree when [Read] ran.
type State struct {
	err      error           // why git can restore nothing: not a repository, git missing …
	tracked  map[string]bool // index entries: path → restorable (tracked, plain, unflagged)
	problems []problem       // status entries and flagged index entries, sorted by path
}

// problem is a path, or a directory (ending in "/"), that git cannot
// restore as it is, and why.
type problem struct {
	path string
	why  string
}

// Loss is a path a command would destroy that git cannot restore.
type Loss struct {
	Path string // relative to the root, slash-separated; a directory ends in "/"
	Why  string // "untracked", "ignored", "modified", "not in a git repository" …
}

func (l Loss) String() string { return l.Path + " (" + l.Why + ")" }

// statusArgs ask for every change, untracked directories as one entry
// each (-unormal, whatever status.showUntrackedFiles says) and ignored
// files, NUL-separated, with no rename detection (a staged rename is a
// deletion and an addition).
var statusArgs = []string{"status", "--porcelain=v2", "-z", "--untracked-files=normal", "--ignored=traditional", "--no-renames", "--ignore-submodules=none"}

// lsFilesArgs list the index with its flags: -v marks assume-unchanged
// entries with a lower-case tag and skip-worktree ones with S, -s gives the
// mode (160000 is a submodule) and stage (non-zero: unmerged).
var lsFilesArgs = []string{"ls-files", "-z", "-v", "-s"}

// Read asks git, through run, for the state of the work tree. It never
// fails: when git cannot answer (not a repository, git not installed),
// the State says so and restores nothing.
func Read(run Runner) *State {
	st, err := run(statusArgs...)
	if err != nil {
		return &State{err: gitError("git status", err)}
	}
	ls, err := run(lsFilesArgs...)
	if err != nil {
		return &State{err: gitError("git ls-files", err)}
	}
	s, err := parse(st, ls)
	if err != nil {
		return &State{err: err}
	}
	return s
}

func gitError(what string, err error) error {
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) && ee.ExitCode() == 128 {
		return errors.New("the project is not a git repository that clada can read")
	}
	return fmt.Errorf("%s failed: %v", what, err)
}

// Failed returns, when git could not tell anything, the reason; nil when
// the State holds git's answer.
func (s *State) Failed() error { return s.err }

func parse(status, ls []byte) (*State, error) {
	s := &State{tracked: map[string]bool{}}
	for _, e := range splitZ(ls) {
		// "H 100644 <object> 0\tpath"
		meta, p, ok := strings.Cut(e, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || len(f[0]) != 1 {
			return nil, fmt.Errorf("git ls-files: cannot read %q", e)
		}
		tag, mode, stage := f[0][0], f[1], f[3]
		why := ""
		switch {
		case stage != "0":
			why = "in a merge conflict"
		case mode == "160000":
			why = "a submodule"
		case tag == 'S':
			why = "marked skip-worktree"
		case tag >= 'a' && tag <= 'z':
			why = "marked assume-unchanged"
		case tag != 'H':
			why = "not cleanly tracked"
		}
		if why != "" {
			s.tracked[p] = false
			if mode == "160000" {
				p += "/" // a directory, with whatever the submodule holds
			}
			s.problems = append(s.problems, problem{p, why})
			continue
		}
		if _, seen := s.tracked[p]; !seen {
			s.tracked[p] = true
		}
	}
	entries := splitZ(status)
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if e == "" {
			continue
		}
		switch e[0] {
		case '#':
		case '?':
			s.problems = append(s.problems, problem{e[2:], "untracked"})
		case '!':
			s.problems = append(s.problems, problem{e[2:], "ignored"})
		case '1', '2', 'u':
			n := map[byte]int{'1': 9, '2': 10, 'u': 11}[e[0]]
			f := strings.SplitN(e, " ", n)
			if len(f) != n || len(f[1]) != 2 {
				return nil, fmt.Errorf("git status: cannot read %q", e)
			}
			if e[0] == '2' {
				i++ // the original path of a rename or copy follows
			}
			x, y := f[1][0], f[1][1]
			switch {
			case e[0] == 'u':
				s.problems = append(s.problems, problem{f[n-1], "in a merge conflict"})
			case y == 'D':
				// Deleted from the work tree: nothing left to lose.
			case y != '.':
				s.problems = append(s.problems, problem{f[n-1], "modified"})
			case x != '.':
				s.problems = append(s.problems, problem{f[n-1], "staged, not committed"})
			}
		default:
			return nil, fmt.Errorf("git status: cannot read %q", e)
		}
	}
	sort.Slice(s.problems, func(i, j int) bool { return s.problems[i].path < s.problems[j].path })
	s.problems = slices.Compact(s.problems) // an unmerged path has an index entry per stage and one status entry
	return s, nil
}

func splitZ(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}

// maxLosses bounds the losses Lost reports for one path.
const maxLosses = 20

// Lost returns what git cannot restore of rel (relative to the root,
// slash-separated): for a file, itself unless it is tracked and
// unmodified; for a directory (tree), every untracked, ignored or changed
// path at or under it, and every path above it that holds it (an untracked
// directory). nil means git can restore all of it. At most 20 losses are
// returned.
func (s *State) Lost(rel string, tree bool) []Loss {
	rel = path.Clean(rel)
	if s.err != nil {
		p := rel
		if tree {
			p += "/"
		}
		return []Loss{{p, s.err.Error()}}
	}
	var out []Loss
	for _, pr := range s.problems {
		if len(out) == maxLosses {
			break
		}
		if covers(pr.path, rel) || tree && under(pr.path, rel) {
			out = append(out, Loss{pr.path, pr.why})
		}
	}
	if len(out) > 0 || tree {
		return out
	}
	if ok, known := s.tracked[rel]; !known || !ok {
		return []Loss{{rel, "not tracked by git"}}
	}
	return nil
}

// covers reports whether the status entry p is rel, or a directory entry
// ("dir/") that holds rel.
func covers(p, rel string) bool {
	if p == rel || p == rel+"/" {
		return true
	}
	return strings.HasSuffix(p, "/") && strings.HasPrefix(rel, p)
}

// under reports whether p lies under the directory rel ("." is the root).
func under(p, rel string) bool {
	if rel == "." {
		return true
	}
	return strings.HasPrefix(p, rel+"/")
}
