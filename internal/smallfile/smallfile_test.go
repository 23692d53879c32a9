package smallfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRead: Read gives what os.ReadFile gives, cut at limit+1 bytes when
// there is a limit, and os.ReadFile's errors.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 10000) // 160 KB: several reads
	files := map[string][]byte{"empty": nil, "small": []byte("[user]\n\tname = x\n"), "big": big}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		for _, limit := range []int64{-1, 0, 5, 1 << 20, int64(len(content)), int64(len(content)) - 1} {
			got, err := Read(filepath.Join(dir, name), limit)
			want := content
			if limit >= 0 && int64(len(want)) > limit+1 {
				want = want[:limit+1]
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("Read(%s, %d) = %d bytes, %v; want %d bytes", name, limit, len(got), err, len(want))
			}
		}
		if got, err := readOS(filepath.Join(dir, name), -1); err != nil || !bytes.Equal(got, content) {
			t.Errorf("readOS(%s) = %d bytes, %v", name, len(got), err)
		}
	}
	_, err := Read(filepath.Join(dir, "missing"), -1)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != filepath.Join(dir, "missing") {
		t.Errorf("missing file: %v, want a *fs.PathError that is fs.ErrNotExist", err)
	}
	if _, err := Read(dir, -1); err == nil {
		t.Errorf("reading a directory: no error")
	}
}
