package approve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeParse stands in for parser.Command, which approve must not import:
// words split on blanks, single quotes, backslash escapes, # comments;
// unquoted shell syntax, including the glob *, is refused.
func fakeParse(s string) ([]string, error) {
	var argv []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				argv = append(argv, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			i = len(s)
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash")
			}
			cur.WriteByte(s[i+1])
			i++
			inWord = true
		case strings.IndexByte("*?[$;|&<>\"`\n", c) >= 0:
			return nil, fmt.Errorf("%q is shell syntax", c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		argv = append(argv, cur.String())
	}
	return argv, nil
}

func TestParsePattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Pattern
		wantErr bool
		reason  string
	}{
		{name: "exact", in: "npm test", want: Pattern{Text: "npm test", Argv: []string{"npm", "test"}}},
		{name: "prefix", in: "npm test *", want: Pattern{Text: "npm test *", Argv: []string{"npm", "test", "*"}, Prefix: true}},
		{name: "blanks trimmed", in: "  npm\ttest   * \n", want: Pattern{Text: "npm\ttest   *", Argv: []string{"npm", "test", "*"}, Prefix: true}},
		{name: "quoted words before star", in: "grep 'a b' *", want: Pattern{Text: "grep 'a b' *", Argv: []string{"grep", "a b", "*"}, Prefix: true}},
		{name: "quoted star is literal", in: "rm '*'", want: Pattern{Text: "rm '*'", Argv: []string{"rm", "*"}},
			reason: "approving rm of a file named * must not allow every rm"},
		{name: "escaped star is literal", in: `rm \*`, want: Pattern{Text: `rm \*`, Argv: []string{"rm", "*"}}},
		{name: "star in comment", in: "npm # *", want: Pattern{Text: "npm # *", Argv: []string{"npm"}},
			reason: "the * is not a word, so no prefix"},
		{name: "star glued to word", in: "npm test*", wantErr: true},
		{name: "star after escaped blank", in: `npm test\ *`, wantErr: true, reason: "the word is 'test *', a glob"},
		{name: "star in middle", in: "npm * x", wantErr: true},
		{name: "only star", in: "*", wantErr: true},
		{name: "empty", in: "  ", wantErr: true},
		{name: "only comment", in: "# x", wantErr: true},
		{name: "refused syntax", in: "npm test; rm x", wantErr: true},
		{name: "invalid utf8", in: "echo \xff", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePattern(tt.in, fakeParse)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParsePattern(%q) error = %v, want error %v (%s)", tt.in, err, tt.wantErr, tt.reason)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParsePattern(%q) (-want +got):\n%s%s", tt.in, diff, tt.reason)
			}
		})
	}
}

func TestPatternMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pattern string
		argv    []string
		want    bool
	}{
		{"exact equal", "npm test", []string{"npm", "test"}, true},
		{"exact longer", "npm test", []string{"npm", "test", "x"}, false},
		{"exact shorter", "npm test", []string{"npm"}, false},
		{"quoting does not matter", "'npm' te\\st", []string{"npm", "test"}, true},
		{"prefix zero extra", "npm test *", []string{"npm", "test"}, true},
		{"prefix one extra", "npm test *", []string{"npm", "test", "x"}, true},
		{"prefix many extra", "npm test *", []string{"npm", "test", "x", "--", "y"}, true},
		{"prefix not a word prefix", "npm test *", []string{"npm", "tests"}, false},
		{"prefix too short", "npm test *", []string{"npm"}, false},
		{"prefix other program", "npm test *", []string{"pnpm", "test"}, false},
		{"literal star matches star", "rm '*'", []string{"rm", "*"}, true},
		{"literal star no prefix", "rm '*'", []string{"rm", "-rf", "/"}, false},
		{"empty argv", "npm *", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := ParsePattern(tt.pattern, fakeParse)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Match(tt.argv); got != tt.want {
				t.Errorf("%q.Match(%q) = %v, want %v", tt.pattern, tt.argv, got, tt.want)
			}
		})
	}
	if (Pattern{}).Match(nil) {
		t.Error("zero Pattern matches an empty argv")
	}
}

func writeFile(t *testing.T, root, name, content string) string {
	t.Helper()
	dir := filepath.Join(root, DirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func texts(ps []Pattern) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Text)
	}
	return out
}

func mustLoad(t *testing.T, root string) *Commands {
	t.Helper()
	c, err := LoadCommands(root, fakeParse)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadCommandsMissing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c := mustLoad(t, root)
	if want := filepath.Join(root, ".clada", "commands.toml"); c.Path != want || len(c.Allowed) != 0 || len(c.Blocked) != 0 {
		t.Errorf("LoadCommands of an empty root = %q %v %v; want %q and no patterns", c.Path, c.Allowed, c.Blocked, want)
	}
	if _, ok := c.MatchAllowed([]string{"ls"}); ok {
		t.Error("empty store allows ls")
	}
}

func TestLoadCommandsMatch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, CommandsFile, `# mine
allowed = ["npm test *", "make"]
blocked = [
  "npm test --bad *",  # comment
  'rm x',
]
`)
	c := mustLoad(t, root)
	if diff := cmp.Diff([]string{"npm test *", "make"}, texts(c.Allowed)); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"npm test --bad *", "rm x"}, texts(c.Blocked)); diff != "" {
		t.Errorf("blocked (-want +got):\n%s", diff)
	}
	if p, ok := c.MatchAllowed([]string{"npm", "test", "-v"}); !ok || p.Text != "npm test *" {
		t.Errorf("MatchAllowed = %v, %v", p, ok)
	}
	if p, ok := c.MatchBlocked([]string{"npm", "test", "--bad", "x"}); !ok || p.Text != "npm test --bad *" {
		t.Errorf("MatchBlocked = %v, %v", p, ok)
	}
	if _, ok := c.MatchBlocked([]string{"npm", "test"}); ok {
		t.Error("npm test is blocked")
	}
}

func TestAddRemove(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path, err := Add(root, ListAllowed, "npm test *", fakeParse)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".clada", "commands.toml"); path != want {
		t.Errorf("path = %q, want %q", path, want)
	}
	for _, step := range []struct {
		list    List
		pattern string
	}{
		{ListAllowed, "make"},
		{ListAllowed, "'npm'  test *"}, // same argv: not added twice
		{ListBlocked, "rm -rf x"},
		{ListBlocked, `grep a 'it'\''s' \\`},
	} {
		if _, err := Add(root, step.list, step.pattern, fakeParse); err != nil {
			t.Fatal(err)
		}
	}
	want := commandsHeader + `
allowed = [
  "npm test *",
  "make",
]

blocked = [
  "rm -rf x",
  "grep a 'it'\\''s' \\\\",
]
`
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("commands.toml (-want +got):\n%s", diff)
	}
	c := mustLoad(t, root)
	if _, ok := c.MatchBlocked([]string{"grep", "a", "it's", `\`}); !ok {
		t.Errorf("escaped pattern did not survive the round trip: %q", texts(c.Blocked))
	}

	// always after never: moves the pattern, never both lists.
	if _, err := Add(root, ListBlocked, "make", fakeParse); err != nil {
		t.Fatal(err)
	}
	c = mustLoad(t, root)
	if diff := cmp.Diff([]string{"npm test *"}, texts(c.Allowed)); diff != "" {
		t.Errorf("allowed after blocking make (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rm -rf x", `grep a 'it'\''s' \\`, "make"}, texts(c.Blocked)); diff != "" {
		t.Errorf("blocked after blocking make (-want +got):\n%s", diff)
	}

	// Remove matches by argv, from both lists.
	_, removed, err := Remove(root, `'rm' -rf x`, fakeParse)
	if err != nil || !removed {
		t.Fatalf("Remove = %v, %v", removed, err)
	}
	_, removed, err = Remove(root, "npm test", fakeParse)
	if err != nil || removed {
		t.Fatalf("Remove of npm test (no *) = %v, %v; want nothing removed", removed, err)
	}
	_, removed, err = Remove(root, "npm test *", fakeParse)
	if err != nil || !removed {
		t.Fatalf("Remove = %v, %v", removed, err)
	}
	c = mustLoad(t, root)
	if diff := cmp.Diff([]string{}, texts(c.Allowed)); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`grep a 'it'\''s' \\`, "make"}, texts(c.Blocked)); diff != "" {
		t.Errorf("blocked (-want +got):\n%s", diff)
	}
}

func TestAddRefusesBadInput(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, p := range []string{"", "*", "npm $X", "a;b"} {
		if _, err := Add(root, ListAllowed, p, fakeParse); err == nil {
			t.Errorf("Add(%q) succeeded", p)
		}
	}
	if _, err := Add(root, "maybe", "ls", fakeParse); err == nil {
		t.Error("Add to an unknown list succeeded")
	}
	if _, err := os.Stat(filepath.Join(root, ".clada", "commands.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused Add wrote the file: %v", err)
	}
}

func TestCorruptCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string
		content  string
		wantLine int
		wantKey  string
	}{
		{name: "toml syntax", file: CommandsFile, content: "allowed = [\"ls\"]\n\nblocked = [\"x\"\n", wantLine: 3},
		{name: "toml unterminated string", file: CommandsFile, content: "allowed = [\n  \"ls\n]\n", wantLine: 2},
		{name: "toml unknown key", file: CommandsFile, content: "allowed = []\n\nalowed = [\"x\"]\n", wantLine: 3, wantKey: "alowed"},
		{name: "toml table", file: CommandsFile, content: "allowed = []\n[extra]\nx = 1\n", wantLine: 2, wantKey: "extra"},
		{name: "toml wrong type", file: CommandsFile, content: "\nblocked = \"rm\"\n", wantLine: 2, wantKey: "blocked"},
		{name: "toml entry not a string", file: CommandsFile, content: "allowed = [\n\"ls\",\n 3,\n]\n", wantLine: 1, wantKey: "allowed"},
		{name: "toml refused pattern", file: CommandsFile, content: "allowed = []\nblocked = [\n  \"ls $HOME\",\n]\n", wantLine: 2, wantKey: "blocked"},
		{name: "json syntax", file: LegacyFile, content: "{\n  \"allowed\": [\"ls\",]\n}\n", wantLine: 2, wantKey: "allowed"},
		{name: "json unknown key", file: LegacyFile, content: "{\n  \"allowed\": [],\n  \"other\": 1\n}\n", wantLine: 3, wantKey: "other"},
		{name: "json wrong type", file: LegacyFile, content: "{\n\n  \"allowed\": \"ls\"\n}\n", wantLine: 3, wantKey: "allowed"},
		{name: "json refused pattern", file: LegacyFile, content: "{\"allowed\": [],\n \"blocked\": [\"a|b\"]}", wantLine: 2, wantKey: "blocked"},
		{name: "json not an object", file: LegacyFile, content: "\n[\"ls\"]\n", wantLine: 2},
		{name: "json trailing text", file: LegacyFile, content: "{}\n{}\n", wantLine: 2},
		{name: "json truncated", file: LegacyFile, content: "{\n\"allowed\": [\n", wantLine: 3, wantKey: "allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path := writeFile(t, root, tt.file, tt.content)
			check := func(op string, err error) {
				t.Helper()
				var fe *FileError
				if !errors.As(err, &fe) {
					t.Fatalf("%s: error = %v, want a *FileError", op, err)
				}
				if fe.Path != path || fe.Line != tt.wantLine || fe.Key != tt.wantKey {
					t.Errorf("%s: got %s:%d key %q, want %s:%d key %q (%v)", op, fe.Path, fe.Line, fe.Key, path, tt.wantLine, tt.wantKey, err)
				}
				if !strings.HasPrefix(err.Error(), fmt.Sprintf("%s:%d: ", path, tt.wantLine)) {
					t.Errorf("%s: message %q does not start with file:line", op, err)
				}
			}
			_, err := LoadCommands(root, fakeParse)
			check("LoadCommands", err)
			_, err = Add(root, ListAllowed, "make", fakeParse)
			check("Add", err)
			_, _, err = Remove(root, "ls", fakeParse)
			check("Remove", err)
			got, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if string(got) != tt.content {
				t.Errorf("file changed:\n%q\nwant\n%q", got, tt.content)
			}
			if _, err := os.Stat(filepath.Join(root, DirName, CommandsFile)); tt.file == LegacyFile && err == nil {
				t.Error("commands.toml was written next to a corrupt commands.json")
			}
		})
	}
}

func TestLegacyJSON(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	jsonPath := writeFile(t, root, LegacyFile, `{"allowed": ["npm test *", "make"], "blocked": ["rm x"]}`)
	writeFile(t, root, CommandsFile, "allowed = [\"make\", \"go test *\"]\n")

	c := mustLoad(t, root)
	if diff := cmp.Diff([]string{"make", "go test *", "npm test *"}, texts(c.Allowed)); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rm x"}, texts(c.Blocked)); diff != "" {
		t.Errorf("blocked (-want +got):\n%s", diff)
	}

	// The first write migrates the JSON entries; removing one of them
	// sticks.
	path, removed, err := Remove(root, "npm test *", fakeParse)
	if err != nil || !removed {
		t.Fatalf("Remove = %v, %v", removed, err)
	}
	if path != c.Path {
		t.Errorf("Remove wrote %s, want %s", path, c.Path)
	}
	if _, err := os.Stat(jsonPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("commands.json still there after migration: %v", err)
	}
	if _, err := os.Stat(jsonPath + ".migrated"); err != nil {
		t.Errorf("commands.json not kept as commands.json.migrated: %v", err)
	}
	c = mustLoad(t, root)
	if diff := cmp.Diff([]string{"make", "go test *"}, texts(c.Allowed)); diff != "" {
		t.Errorf("allowed after migration (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rm x"}, texts(c.Blocked)); diff != "" {
		t.Errorf("blocked after migration (-want +got):\n%s", diff)
	}
}

func TestLegacyJSONOnlyAdd(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, LegacyFile, `{"allowed": ["make"]}`)
	path, err := Add(root, ListBlocked, "rm x", fakeParse)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != CommandsFile {
		t.Errorf("Add wrote %s, want commands.toml", path)
	}
	c := mustLoad(t, root)
	if diff := cmp.Diff([]string{"make"}, texts(c.Allowed)); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rm x"}, texts(c.Blocked)); diff != "" {
		t.Errorf("blocked (-want +got):\n%s", diff)
	}
}

func TestAddNoChangeKeepsFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	content := "# hand-written\nallowed = [\"make\"]\n"
	path := writeFile(t, root, CommandsFile, content)
	if _, err := Add(root, ListAllowed, "'make'", fakeParse); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Errorf("Add of a present pattern rewrote the file:\n%s", got)
	}
}

// TestConcurrentAdd starts 20 processes that each add one pattern at the
// same time; every pattern must be kept.
func TestConcurrentAdd(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const n = 20
	errs := make(chan error, n)
	for i := range n {
		go func() {
			out, err := childCommand(t, "add", "APPROVE_ROOT="+root, fmt.Sprintf("APPROVE_PATTERN=tool%02d --flag *", i)).CombinedOutput()
			if err != nil {
				err = fmt.Errorf("child %d: %v\n%s", i, err, out)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	c := mustLoad(t, root)
	if len(c.Allowed) != n {
		t.Fatalf("%d entries after %d concurrent adds: %q", len(c.Allowed), n, texts(c.Allowed))
	}
	for i := range n {
		if _, ok := c.MatchAllowed([]string{fmt.Sprintf("tool%02d", i), "--flag"}); !ok {
			t.Errorf("tool%02d missing", i)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(root, DirName, ".commands.toml.tmp-*"))
	if len(matches) != 0 {
		t.Errorf("temporary files left: %q", matches)
	}
}

// A loaded store sees what another process (here: Add) wrote, and keeps
// its lists when the file is broken meanwhile.
func TestCommandsRefresh(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c := mustLoad(t, root)
	if changed, err := c.Refresh(); changed || err != nil {
		t.Fatalf("Refresh of an unchanged store = %v, %v", changed, err)
	}
	if _, err := Add(root, ListAllowed, "npm test", fakeParse); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.MatchAllowed([]string{"npm", "test"}); ok {
		t.Fatal("the store changed before Refresh")
	}
	if changed, err := c.Refresh(); !changed || err != nil {
		t.Fatalf("Refresh after Add = %v, %v; want changed", changed, err)
	}
	if _, ok := c.MatchAllowed([]string{"npm", "test"}); !ok {
		t.Error("Refresh did not pick up the added pattern")
	}
	if _, err := Add(root, ListBlocked, "make", fakeParse); err != nil {
		t.Fatal(err)
	}
	if changed, err := c.Refresh(); !changed || err != nil {
		t.Fatalf("second Refresh = %v, %v", changed, err)
	}
	if _, ok := c.MatchBlocked([]string{"make"}); !ok {
		t.Error("Refresh did not pick up the blocked pattern")
	}
	if err := os.WriteFile(c.Path, []byte("allowed = [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Refresh(); err == nil {
		t.Error("Refresh of a broken file gave no error")
	}
	if _, ok := c.MatchAllowed([]string{"npm", "test"}); !ok {
		t.Error("a broken file emptied the store; it must keep what it read")
	}
}
