package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Dir is where a Store keeps its runs, relative to the project root.
const Dir = ".clada/out"

// The history a Store keeps by default: the newest runs win.
const (
	DefaultMaxRuns  = 100
	DefaultMaxBytes = 256 << 20
)

// gitignore keeps everything in Dir, itself included, out of git.
const gitignore = "# clada saves what commands print here; none of it belongs in git.\n*\n"

// Store is ROOT/.clada/out: one directory per clada run, numbered from 1
// (.clada/out/7/), holding BLOCK.stdout and BLOCK.stderr for the RUN blocks
// of that run that printed something. The run's directory is made when the
// first of its commands prints, and then older runs are removed until at
// most MaxRuns are left, the new one included, and older runs take no
// more than MaxBytes; [Store.Close] applies MaxBytes again once the run's
// own files are written. The current run is never removed, so one run may
// hold more than MaxBytes (each of its commands is bounded by the output
// cap).
//
// A Store is safe for concurrent use, and several clada processes may
// share one directory: each takes a run number of its own.
type Store struct {
	root string
	keep int
	// MaxRuns and MaxBytes bound the history; zero means DefaultMaxRuns
	// and DefaultMaxBytes. Set them before the first Streams.
	MaxRuns  int
	MaxBytes int64

	mu  sync.Mutex
	run int   // this run's number; 0 until its directory exists
	err error // why the run's directory could not be made
}

// NewStore returns the Store of the project at root (an absolute path)
// whose Streams keep keep bytes at each end in memory. Nothing is read or
// written until a Stream is written to.
func NewStore(root string, keep int) *Store {
	return &Store{root: root, keep: keep}
}

// Streams returns the stdout and stderr sinks of RUN block number block
// (1-based, as reports number blocks).
func (s *Store) Streams(block int) (stdout, stderr *Stream) {
	return &Stream{name: "stdout", store: s, block: block, keep: max(s.keep, 0)},
		&Stream{name: "stderr", store: s, block: block, keep: max(s.keep, 0)}
}

// Run is this run's number, 0 when nothing has been saved.
func (s *Store) Run() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run
}

// create makes the file for one stream, starting the run when needed.
func (s *Store) create(block int, name string) (rel string, f *os.File, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == 0 && s.err == nil {
		s.err = s.start()
	}
	if s.err != nil {
		return "", nil, s.err
	}
	rel = fmt.Sprintf("%s/%d/%d.%s", Dir, s.run, block, name)
	f, err = os.OpenFile(filepath.Join(s.root, filepath.FromSlash(rel)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", nil, fmt.Errorf("saving %s: %w", name, err)
	}
	return rel, f, nil
}

// start makes .clada/out (with its .gitignore) and the run's directory,
// then trims the history.
func (s *Store) start() error {
	dir := filepath.Join(s.root, filepath.FromSlash(Dir))
	// Nor may .clada itself be a link: MkdirAll and every later path
	// would follow it.
	top := filepath.Join(s.root, filepath.FromSlash(strings.Split(Dir, "/")[0]))
	if fi, err := os.Lstat(top); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (a symbolic link?): clada writes no output through it", top)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("making %s: %w", Dir, err)
	}
	// A symbolic link here would send output, and the pruning, elsewhere.
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a directory: move it away and clada makes a new one", Dir)
	}
	gi, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	switch {
	case err == nil:
		_, err = gi.WriteString(gitignore)
		err = errors.Join(err, gi.Close())
		if err != nil {
			return fmt.Errorf("writing %s/.gitignore: %w", Dir, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("writing %s/.gitignore: %w", Dir, err)
	}
	runs, err := s.runs()
	if err != nil {
		return err
	}
	next := 1
	if len(runs) > 0 {
		next = runs[len(runs)-1] + 1
	}
	// Another clada may take the same number at the same moment; Mkdir
	// lets exactly one of them have it.
	for tries := 0; ; tries++ {
		err = os.Mkdir(filepath.Join(dir, strconv.Itoa(next)), 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || tries == 1000 {
			return fmt.Errorf("making a run directory in %s: %w", Dir, err)
		}
		next++
	}
	s.run = next
	s.prune(true)
	return nil
}

// runs lists the numbered run directories, oldest first.
func (s *Store) runs() ([]int, error) {
	entries, err := os.ReadDir(filepath.Join(s.root, filepath.FromSlash(Dir)))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", Dir, err)
	}
	var runs []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n <= 0 || strconv.Itoa(n) != e.Name() || !e.IsDir() {
			continue // not ours
		}
		runs = append(runs, n)
	}
	slices.Sort(runs)
	return runs, nil
}

// prune removes the oldest runs other than the current one while there
// are more than MaxRuns (byCount, when a run starts) or they hold more than
// MaxBytes (when it ends, and its files are written). Counting needs one
// directory listing; the sizes need every run's files looked at, which
// with a full history of 100 runs took ~1.7 ms here, so a run does that
// once. Errors are ignored: the history is trimmed again next time.
func (s *Store) prune(byCount bool) {
	maxRuns, maxBytes := s.MaxRuns, s.MaxBytes
	if maxRuns <= 0 {
		maxRuns = DefaultMaxRuns
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	runs, err := s.runs()
	if err != nil {
		return
	}
	dir := filepath.Join(s.root, filepath.FromSlash(Dir))
	sizes := make([]int64, len(runs))
	var total int64 // stays 0 when byCount: only the count is checked
	if !byCount {
		for i, r := range runs {
			sizes[i] = dirSize(filepath.Join(dir, strconv.Itoa(r)))
			total += sizes[i]
		}
	}
	count := len(runs)
	for i, r := range runs {
		if r == s.run {
			continue
		}
		if !(byCount && count > maxRuns) && total <= maxBytes {
			break
		}
		if os.RemoveAll(filepath.Join(dir, strconv.Itoa(r))) == nil {
			count--
			total -= sizes[i]
		}
	}
}

// dirSize adds up the sizes of the files directly in dir.
func dirSize(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// Close trims the history by MaxBytes now that this run's files are
// written. It does nothing when the run saved nothing.
func (s *Store) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run != 0 {
		s.prune(false)
	}
}
