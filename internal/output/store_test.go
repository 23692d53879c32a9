package output

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestStoreSavesWholeStream(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := NewStore(root, 16)
	out, errOut := s.Streams(3)
	text := seq(5000)
	for p := text; len(p) > 0; {
		n := min(1000, len(p))
		out.Write([]byte(p[:n]))
		p = p[n:]
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	errOut.Close()
	s.Close()
	if out.Path() != ".clada/out/1/3.stdout" {
		t.Errorf("Path = %q, want .clada/out/1/3.stdout", out.Path())
	}
	if got := readFile(t, filepath.Join(root, out.Path())); got != text {
		t.Errorf("saved %d bytes, want the whole %d", len(got), len(text))
	}
	if out.Saved() != int64(len(text)) || out.Err() != nil {
		t.Errorf("Saved, Err = %d, %v", out.Saved(), out.Err())
	}
	if errOut.Path() != "" {
		t.Errorf("an empty stream was saved to %q", errOut.Path())
	}
	if _, err := os.Stat(filepath.Join(root, ".clada/out/1/3.stderr")); !os.IsNotExist(err) {
		t.Errorf("an empty stream has a file: %v", err)
	}
	if got := readFile(t, filepath.Join(root, ".clada/out/.gitignore")); !strings.Contains(got, "\n*\n") {
		t.Errorf(".gitignore = %q, want it to ignore everything", got)
	}
}

// TestStoreWritesNothingUntilOutput: a run whose commands print nothing
// (and a dry run, which makes no Streams) leaves no trace.
func TestStoreWritesNothingUntilOutput(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := NewStore(root, 16)
	out, errOut := s.Streams(1)
	out.Close()
	errOut.Close()
	s.Close()
	if _, err := os.Stat(filepath.Join(root, ".clada")); !os.IsNotExist(err) {
		t.Errorf(".clada exists after a run that printed nothing: %v", err)
	}
	if s.Run() != 0 {
		t.Errorf("Run = %d, want 0", s.Run())
	}
}

func TestStoreNumbersRuns(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// Not ours: left alone and not counted.
	for _, d := range []string{".clada/out/notes", ".clada/out/007"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for range 3 {
		s := NewStore(root, 16)
		out, _ := s.Streams(1)
		out.Write([]byte("x"))
		out.Close()
		s.Close()
		paths = append(paths, out.Path())
	}
	want := []string{".clada/out/1/1.stdout", ".clada/out/2/1.stdout", ".clada/out/3/1.stdout"}
	if !slices.Equal(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
	for _, d := range []string{".clada/out/notes", ".clada/out/007"} {
		if _, err := os.Stat(filepath.Join(root, d)); err != nil {
			t.Errorf("%s was touched: %v", d, err)
		}
	}
}

// TestStoreConcurrentRuns: clada processes running at once each get a
// run of their own.
func TestStoreConcurrentRuns(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const n = 8
	runs := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s := NewStore(root, 16)
			out, _ := s.Streams(1)
			out.Write([]byte("x"))
			out.Close()
			runs[i] = s.Run()
		})
	}
	wg.Wait()
	slices.Sort(runs)
	if runs[0] == 0 || len(slices.Compact(slices.Clone(runs))) != n {
		t.Errorf("runs = %v, want %d distinct runs", runs, n)
	}
}

func TestStorePrunesByCount(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for range 5 {
		s := NewStore(root, 16)
		s.MaxRuns = 3
		out, _ := s.Streams(1)
		out.Write([]byte("x"))
		out.Close()
		s.Close()
	}
	if got := runDirs(t, root); !slices.Equal(got, []string{"3", "4", "5"}) {
		t.Errorf("runs left = %q, want the newest 3", got)
	}
}

func TestStorePrunesByBytes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, size := range []int{400, 400, 400, 900} {
		s := NewStore(root, 16)
		s.MaxBytes = 1000
		out, _ := s.Streams(1)
		out.Write([]byte(strings.Repeat("x", size)))
		out.Close()
		s.Close()
	}
	// After the third run: 1200 bytes, run 1 goes. The fourth holds 900
	// on its own: every older run goes, and it stays.
	if got := runDirs(t, root); !slices.Equal(got, []string{"4"}) {
		t.Errorf("runs left = %q, want only the newest", got)
	}
	s := NewStore(root, 16)
	s.MaxBytes = 100
	out, _ := s.Streams(1)
	out.Write([]byte(strings.Repeat("x", 500)))
	out.Close()
	s.Close()
	if got := runDirs(t, root); !slices.Equal(got, []string{"5"}) {
		t.Errorf("runs left = %q, want the current run kept even over MaxBytes", got)
	}
}

func runDirs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, ".clada", "out"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestStoreRefusesSymlink: a .clada/out that is a symbolic link (a command
// may have made one) is not followed; the output is still counted and
// kept in memory, and the error says what to do.
func TestStoreRefusesSymlink(t *testing.T) {
	t.Parallel()
	root, elsewhere := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".clada"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, ".clada", "out")); err != nil {
		t.Fatal(err)
	}
	s := NewStore(root, 16)
	out, _ := s.Streams(1)
	out.Write([]byte("hello\n"))
	out.Close()
	if out.Err() == nil || out.Path() != "" {
		t.Errorf("Err, Path = %v, %q; want an error and no path", out.Err(), out.Path())
	}
	if e := out.Excerpt(100, 10); string(e.Head) != "hello\n" || out.Bytes() != 6 {
		t.Errorf("the output was not kept in memory: %q, %d bytes", e.Head, out.Bytes())
	}
	entries, _ := os.ReadDir(elsewhere)
	if len(entries) > 0 {
		t.Errorf("wrote through the link: %v", entries)
	}
}

// TestStoreNeverOverwrites: a file already where a stream would go (put
// there by a command) is an error, not overwritten or followed.
func TestStoreNeverOverwrites(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := NewStore(root, 16)
	first, _ := s.Streams(1)
	first.Write([]byte("x"))
	first.Close()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, ".clada/out/1/2.stdout")); err != nil {
		t.Fatal(err)
	}
	out, _ := s.Streams(2)
	out.Write([]byte("overwrite"))
	out.Close()
	if !errors.Is(out.Err(), fs.ErrExist) {
		t.Errorf("Err = %v, want fs.ErrExist", out.Err())
	}
	if got := readFile(t, target); got != "keep me" {
		t.Errorf("target = %q, was written through the link", got)
	}
}

// BenchmarkStoreRunFullHistory is one run's use of the store (a saved
// stdout) with the history at DefaultMaxRuns: the run dir made, the
// oldest run pruned at the start, the sizes summed at Close.
func BenchmarkStoreRunFullHistory(b *testing.B) {
	root := b.TempDir()
	for range DefaultMaxRuns {
		s := NewStore(root, 16)
		out, _ := s.Streams(1)
		out.Write([]byte("saved output\n"))
		out.Close()
		s.Close()
	}
	for b.Loop() {
		s := NewStore(root, 16)
		out, _ := s.Streams(1)
		out.Write([]byte("saved output\n"))
		out.Close()
		s.Close()
	}
}
