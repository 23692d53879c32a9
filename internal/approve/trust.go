package approve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// Trust: a project's own files (.clada/config.toml, commands.toml,
// specs.toml and the legacy commands.json) loosen nothing until the person
// trusts them. `clada trust` records the sha256 of each file's content in
// the user's state directory ([TrustFile]), keyed by the project root; a
// file whose content has another hash (a change by a model's command, a
// git pull, a cloned repository) is untrusted again. What clada writes
// itself after the person answered (always, never, clada allow, block,
// forget) is recorded as it writes it, when the file was trusted (or
// absent) before. An untrusted file still tightens: its blocked patterns,
// sandbox = "required", untrusted = true, more secrets, shorter limits
// and compose = false apply (see [MergeConfig]).

// ProjectFiles are the files of .clada that need trust before they loosen
// anything, in the order `clada trust` shows them.
var ProjectFiles = []string{ConfigFile, CommandsFile, LegacyFile, SpecsFile, PersonalConfigFile, PersonalCommandsFile}

// SpecsFile is the project's specs file in .clada (read by package specs).
const SpecsFile = "specs.toml"

// trustFileName is the record in the state directory.
const trustFileName = "trusted.json"

// StateDir returns clada's directory for the person's state: CLADA_STATE_DIR
// when set (tests), else $XDG_STATE_HOME/clada, else ~/.local/state/clada
// on Linux and the BSDs, ~/Library/Application Support/clada on macOS and
// %LocalAppData%\clada on Windows. It is outside every project, so no
// confined command can write it (the sandbox grants only the root, its
// TMPDIR and its caches).
func StateDir() (string, error) {
	if d := os.Getenv("CLADA_STATE_DIR"); d != "" {
		return filepath.Abs(d)
	}
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "clada"), nil
		}
	case "darwin":
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, "Library", "Application Support", "clada"), nil
		}
	default:
		if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "clada"), nil
		}
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, ".local", "state", "clada"), nil
		}
	}
	return "", errors.New("no state directory: set XDG_STATE_HOME or HOME")
}

// TrustFile returns the path of the trust record.
func TrustFile() (string, error) {
	d, err := StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, trustFileName), nil
}

// trustRecord is trusted.json: project root → file name in .clada → hash.
type trustRecord struct {
	Version  int                          `json:"version"`
	Projects map[string]map[string]string `json:"projects"`
}

// Hash is the content hash trust records: "sha256:" and hex.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// trustKey is the key of root in the record: absolute, symbolic links
// resolved, so that one project reached two ways is trusted once.
func trustKey(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// readTrust reads the record; a missing file is an empty record. A record
// that does not parse is an error, and is never overwritten.
func readTrust(path string) (*trustRecord, error) {
	rec := &trustRecord{Version: 1, Projects: map[string]map[string]string{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, fmt.Errorf("%s: %v (fix or remove it; clada never overwrites it)", path, err)
	}
	if rec.Projects == nil {
		rec.Projects = map[string]map[string]string{}
	}
	return rec, nil
}

// Trusted returns the hashes recorded for root's files (file name →
// hash); an empty map when nothing is trusted there.
func Trusted(root string) (map[string]string, error) {
	path, err := TrustFile()
	if err != nil {
		return nil, err
	}
	rec, err := readTrust(path)
	if err != nil {
		return nil, err
	}
	m := rec.Projects[trustKey(root)]
	if m == nil {
		m = map[string]string{}
	}
	return m, nil
}

// RecordTrust sets the recorded hash of each of root's files in hashes;
// an empty hash forgets that file. forgetOthers forgets the files not in
// hashes. The record is changed under a lock and replaced whole.
func RecordTrust(root string, hashes map[string]string, forgetOthers bool) error {
	path, err := TrustFile()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("making %s: %w", filepath.Dir(path), err)
	}
	lock := flock.New(path + ".lock")
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	if ok, err := lock.TryLockContext(ctx, 5*time.Millisecond); err != nil || !ok {
		if err == nil {
			err = ctx.Err()
		}
		return fmt.Errorf("locking %s: %w", lock.Path(), err)
	}
	defer lock.Unlock()
	rec, err := readTrust(path)
	if err != nil {
		return err
	}
	key := trustKey(root)
	m := rec.Projects[key]
	if m == nil || forgetOthers {
		m = map[string]string{}
	}
	for name, h := range hashes {
		if h == "" {
			delete(m, name)
		} else {
			m[name] = h
		}
	}
	if len(m) == 0 {
		delete(rec.Projects, key)
	} else {
		rec.Projects[key] = m
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(data, '\n'))
}

// ForgetTrust forgets every file of root (clada untrust).
func ForgetTrust(root string) error { return RecordTrust(root, nil, true) }

// TrustCheck tells whether a project file's content is trusted. A nil
// *TrustCheck trusts everything (--trust-project, and callers that do not
// check trust, such as tests of the file formats).
type TrustCheck struct {
	root      string
	mu        sync.Mutex
	untrusted []string // the files withheld, in the order of ProjectFiles
	// The record as last read, and the stamp of trusted.json then:
	// opening a project checks up to six files against it.
	record map[string]string
	stamp  fileStamp
	read   bool
}

// NewTrustCheck returns the check of root's files against the record.
func NewTrustCheck(root string) *TrustCheck { return &TrustCheck{root: root} }

// Trusts reports whether data, the content of root/.clada/name, is
// trusted. The record is read again whenever trusted.json changed, so a
// `clada trust` run meanwhile counts. A record that cannot be read trusts
// nothing.
func (t *TrustCheck) Trusts(name string, data []byte) bool {
	if t == nil {
		return true
	}
	m, ok := t.current()
	return ok && m[name] == Hash(data)
}

// current returns root's recorded hashes, read again only when
// trusted.json changed since the last read; ok is false when the record
// cannot be read (then nothing is trusted).
func (t *TrustCheck) current() (map[string]string, bool) {
	path, err := TrustFile()
	if err != nil {
		return nil, false
	}
	now := stampOf(path)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.read && now.same(t.stamp) {
		return t.record, true
	}
	m, err := Trusted(t.root)
	if err != nil {
		t.read = false
		return nil, false
	}
	t.record, t.stamp, t.read = m, now, true
	return m, true
}

// Withhold notes that clada left out what the untrusted file name would
// have loosened; [TrustCheck.Untrusted] lists such files. An untrusted
// file that only tightens withholds nothing and is not listed.
func (t *TrustCheck) Withhold(name string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !slices.Contains(t.untrusted, name) {
		t.untrusted = append(t.untrusted, name)
		slices.SortFunc(t.untrusted, func(a, b string) int {
			return slices.Index(ProjectFiles, a) - slices.Index(ProjectFiles, b)
		})
	}
}

// Untrusted returns the names of the untrusted files whose loosening
// clada left out so far.
func (t *TrustCheck) Untrusted() []string {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.untrusted)
}

// ProjectFile is one of root's project files as read.
type ProjectFile struct {
	Name, Path string
	Data       []byte
}

// ReadProjectFiles reads those of root's [ProjectFiles] that exist, in
// that order, each bounded as the loaders bound it. `clada trust` shows
// and hashes these very bytes.
func ReadProjectFiles(root string) ([]ProjectFile, error) {
	var out []ProjectFile
	for _, name := range ProjectFiles {
		path := filepath.Join(root, DirName, name)
		data, err := readLimited(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ProjectFile{name, path, data})
	}
	return out, nil
}

// TrustCurrent trusts root's project files as they are now, without
// showing them: for what clada itself wrote (clada init) and for tests
// that stand for the person. `clada trust` shows each file first.
func TrustCurrent(root string) error {
	files, err := ReadProjectFiles(root)
	if err != nil {
		return err
	}
	hashes := map[string]string{}
	for _, f := range files {
		hashes[f.Name] = Hash(f.Data)
	}
	return RecordTrust(root, hashes, true)
}
