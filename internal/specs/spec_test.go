package specs

import (
	"bytes"
	"embed"
	"errors"
	"flag"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/rules"
)

var update = flag.Bool("update", false, "rewrite golden files")

func writeUserSpecs(t *testing.T, root, content string) string {
	t.Helper()
	p := filepath.Join(root, ".clada", "specs.toml")
	mustMkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		wantLine      int
		wantField     string
	}{
		{"toml syntax", "[commands.x]\nflags = {\n", 3, "commands.x.flags"},
		{"bad value type", "[commands.x]\nmax_paths = 1\nflags = { \"-n\" = \"number\" }\n", 3, "commands.x.flags"},
		{"unknown field", "[commands.x]\nmax_paths = 1\nmax_path = 2\n", 3, "commands.x.max_path"},
		{"bad writes", "[commands.x]\n\nwrites = \"some\"\n", 3, "commands.x.writes"},
		{"wrong type", "[commands.x]\nmax_paths = \"two\"\n", 2, "commands.x.max_paths"},
		{"bad flag name", "[commands.x]\nflags = { \"n\" = \"bool\" }\n", 2, "commands.x.flags"},
		{"example of another command", "[commands.x]\nallow = [\"y a\"]\n", 2, "commands.x.allow"},
		{"pattern flag not in flags", "[commands.x]\npattern_flags = [\"-e\"]\n", 2, "commands.x.pattern_flags"},
		{"exact and max", "[commands.x]\nmax_paths = 1\nexact_paths = 2\n", 3, "commands.x.exact_paths"},
		{"forbid and flags", "[commands.x]\nflags = { \"-r\" = \"bool\" }\nforbid = { \"-r\" = \"no\" }\n", 3, "commands.x.forbid"},
		{"git", "[commands.git]\nmax_paths = 1\n", 1, "commands.git."},
		{"wrapper", "[commands.env]\nmax_paths = 1\n", 1, "commands.env."},
		{"hard-blocked", "[commands.sudo]\n", 1, "commands.sudo."},
		{"path name", "[commands.\"./x\"]\n", 1, "commands../x."},
		{"relative cache", "[commands.x]\ncaches = [\"cache\"]\n", 2, "commands.x.caches"},
		{"cache in a bad variable", "[commands.x]\ncaches = [\"$A-B/c\"]\n", 2, "commands.x.caches"},
		{"network not a bool", "[commands.x]\nnetwork = \"yes\"\n", 2, "commands.x.network"},
		{"empty cache query word", "[commands.x]\ncache_query = [\"env\", \"\"]\n", 2, "commands.x.cache_query"},
		{"bsd_forbid and bsd_flags", "[commands.x]\nflags = { \"-W\" = \"bool\" }\nbsd_flags = { \"-W\" = \"none\" }\nbsd_forbid = { \"-W\" = \"why\" }\n", 4, "commands.x.bsd_forbid"},
		{"bsd_forbid without reason", "[commands.x]\nbsd_forbid = { \"-W\" = \"\" }\n", 2, "commands.x.bsd_forbid"},
		{"bsd_forbid bad flag", "[commands.x]\nbsd_forbid = { \"W\" = \"why\" }\n", 2, "commands.x.bsd_forbid"},
		{"bsd_forbid on portable", "[commands.x]\nportable = true\nbsd_forbid = { \"-W\" = \"why\" }\n", 2, "commands.x.portable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path := writeUserSpecs(t, root, tt.content)
			_, err := Load(root)
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("Load = %v, want a *SpecError", err)
			}
			type pos struct {
				File  string
				Line  int
				Field string
			}
			if diff := cmp.Diff(pos{path, tt.wantLine, tt.wantField}, pos{se.File, se.Line, se.Field}); diff != "" {
				t.Errorf("error position (-want +got):\n%s\n%v", diff, err)
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Errorf("error %q does not start with the file name", err)
			}
			if _, err := LoadFile(path); err == nil {
				t.Error("LoadFile accepted the same file")
			}
		})
	}
}

func TestLoadOverride(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	root := r.Root()
	writeUserSpecs(t, root, `
[commands.rm]
description = "my rm, recursive allowed"
flags = { "-r" = "bool" }
writes = "all"
allow = ["rm -r dir"]
deny = ["rm -f x", "rm -r .git"]

[commands.make]
flags = { "-j" = "int", "-C" = "path" }
positionals = -1
allow = ["make -j4 test"]
deny = ["make -C /tmp", "make -k"]
`)
	s, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckExamples(r); err != nil {
		t.Error(err)
	}
	def, _ := Default()
	if diff := cmp.Diff(len(def.Names()), len(s.Names())); diff != "" { // make replaces the default
		t.Errorf("number of specs (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		in   string
		want Outcome
	}{
		{"rm -r dir", Allow}, {"rm -f a.txt", Deny}, {"rm -r .git", Deny}, {"rm -rf dir", Deny},
		{"make -j4 test", Allow}, {"make -C /tmp", Deny}, {"cat a.txt", Allow},
	} {
		argv, _ := splitExample(tt.in)
		got := s.Check(argv, root, r)
		if tt.in == "make -j4 test" && got.Rule == rules.NotFound {
			continue // make may be missing; the spec part is covered by CheckExamples
		}
		if got.Outcome != tt.want {
			t.Errorf("Check(%q) = %v (%s), want %v", tt.in, got.Outcome, got.Reason, tt.want)
		}
	}
	// The defaults are untouched.
	if v := def.Check([]string{"rm", "-f", "a.txt"}, root, r); v.Outcome != Allow {
		t.Errorf("default rm -f = %v after a user override", v.Outcome)
	}
	// A missing file means the defaults.
	plain, err := Load(t.TempDir())
	if err != nil || !slices.Equal(plain.Names(), def.Names()) || len(plain.specs) != 0 {
		t.Errorf("Load without specs.toml = %v, %v; want the defaults", plain, err)
	}
}

// TestDefaultSpecsSections: decoding each embedded pack section by
// section gives exactly what decoding the whole file gives, so nothing in
// it is outside a [commands.NAME] section, every section decodes, and no
// command is in two packs.
func TestDefaultSpecsSections(t *testing.T) {
	t.Parallel()
	files, err := fs.Glob(embedded, "packs/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no packs embedded: %v", err)
	}
	whole := map[string]*spec{}
	for _, f := range append([]string{"default.toml"}, files...) {
		data, err := embedded.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := parseSpecs(f, data)
		if err != nil {
			t.Fatal(err)
		}
		for n, sp := range m {
			if _, dup := whole[n]; dup {
				t.Errorf("%s is in two packs", n)
			}
			sp.setPack(packOf(f))
			whole[n] = sp
		}
	}
	if dups := defaults().dups; len(dups) > 0 {
		t.Errorf("commands in two packs: %v", dups)
	}
	def, _ := Default()
	if diff := cmp.Diff(slices.Sorted(maps.Keys(whole)), def.Names()); diff != "" {
		t.Errorf("section names differ from the whole files' (-whole +sections):\n%s", diff)
	}
	for _, name := range def.Names() {
		sp, err := def.spec(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var a, b strings.Builder
		sp.print(&a)
		whole[name].print(&b)
		if a.String() != b.String() {
			t.Errorf("%s decodes differently on its own:\n%s\nvs\n%s", name, a.String(), b.String())
		}
	}
}

func TestCheckExamplesFailures(t *testing.T) {
	t.Parallel()
	r, _ := newFixture(t)
	p := filepath.Join(t.TempDir(), "specs.toml")
	if err := os.WriteFile(p, []byte(`[commands.cat]
allow = ["cat /etc/passwd", "cat a.txt"]
deny = ["cat a.txt"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckExamples(r)
	if err == nil {
		t.Fatal("CheckExamples passed wrong examples")
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 2 {
		t.Errorf("want 2 failures, got %v", err)
	}
}

func TestPrint(t *testing.T) {
	t.Parallel()
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, name := range []string{"head", "find", "cp", "date"} {
		if err := s.Print(&b, name); err != nil {
			t.Fatal(err)
		}
	}
	golden := filepath.Join("testdata", "print.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("Print (-want +got):\n%s", diff)
	}
	for _, name := range []string{"", "nosuch", "./cat"} {
		if err := s.Print(&b, name); err == nil {
			t.Errorf("Print(%q) succeeded", name)
		}
	}
}

// TestList: `clada specs` is one line per command, git included, each with
// where its spec comes from and its description; a spec of the project's
// .clada/specs.toml says so.
func TestList(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".clada"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".clada", "specs.toml"), []byte(`[commands.nl]
description = "number lines"
[commands.cat]
description = "my cat"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := s.List(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	names := append(s.Names(), "git")
	sort.Strings(names)
	if len(lines) != len(names) {
		t.Fatalf("List wrote %d lines for %d commands:\n%s", len(lines), len(names), b.String())
	}
	for i, n := range names {
		f := strings.Fields(lines[i])
		if len(f) < 3 || f[0] != n {
			t.Errorf("line %d = %q, want %s, its source and its description", i+1, lines[i], n)
			continue
		}
		want := "internal/specs/" + defaults().sections[n].file
		switch n {
		case "nl", "cat":
			want = ".clada/specs.toml"
		case "git":
			want = "built-in"
		}
		if f[1] != want {
			t.Errorf("%s comes from %q, want %q", n, f[1], want)
		}
	}
	if !strings.Contains(b.String(), "my cat") || strings.Contains(b.String(), "print files") {
		t.Errorf("cat's line is not the project's spec:\n%s", b.String())
	}
}

// TestPrintGit: `clada specs git` prints git's rules from gitrules: the
// allowed subcommands, asked examples, denied options and the hardening.
func TestPrintGit(t *testing.T) {
	t.Parallel()
	s, _ := Default()
	var b strings.Builder
	if err := s.Print(&b, "git"); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	d := gitrules.Describe()
	var want []string
	want = append(want, d.Allowed...)
	for _, ex := range d.Asked {
		want = append(want, "git "+ex.Args+": "+ex.Reason)
	}
	for _, o := range append(append(d.DeniedGlobal, d.DeniedReads...), d.DeniedAll...) {
		want = append(want, "\n    "+o.Option, o.Reason)
	}
	want = append(want, strings.Join(d.Harden, " "), strings.Join(d.HardenReadOnly, " "), strings.Join(d.Env, " "),
		"GIT_DIR=ROOT/.git", string(rules.GitInclude))
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("clada specs git lacks %q", w)
		}
	}
	if !strings.HasPrefix(text, "git  (from ") || !strings.HasSuffix(text, "\n") {
		t.Errorf("clada specs git starts or ends oddly:\n%s", text)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	s, _ := Default()
	want := []string{"awk", "b2sum", "basename", "black", "cargo", "cat", "chmod", "cksum", "cp", "cut", "dart", "date", "df", "diff", "dirname", "docker", "dotnet", "du", "echo", "eslint", "file", "find", "flake8", "flutter", "free", "gawk", "gem", "go", "gofmt", "gradle", "grep", "head", "hostname", "id", "isort", "journalctl", "jq", "less", "ln", "ls", "make", "md5sum", "mix", "mkdir", "mv", "mvn", "mypy", "nl", "npm", "npx", "pgrep", "pip", "pip3", "prettier", "printenv", "printf", "ps", "pwd", "pylint", "pyright", "pytest", "python", "python3", "realpath", "rg", "rm", "ruff", "sed", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "shasum", "sleep", "sort", "ss", "stat", "swift", "systemctl", "tail", "tar", "touch", "tree", "tsc", "uname", "uniq", "uptime", "wc", "which", "whoami", "xcodebuild", "xxd"}
	if diff := cmp.Diff(want, s.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

func TestSplitExample(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"a b  c", []string{"a", "b", "c"}},
		{`a 'b c' "d e"`, []string{"a", "b c", "d e"}},
		{`a ''`, []string{"a", ""}},
		{`a x'y'"z"`, []string{"a", "xyz"}},
		{`a "q\"q"`, []string{"a", `q"q`}},
	}
	for _, tt := range tests {
		got, err := splitExample(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitExample(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	if _, err := splitExample("a 'b"); err == nil {
		t.Error("unterminated quote accepted")
	}
}

func TestLoadErrorMessages(t *testing.T) {
	t.Parallel()
	tests := []struct{ content, want string }{
		{"[commands.x]\nmax_paths = \"two\"\n", ":2: commands.x.max_paths: want an integer, not a string"},
		{"[commands.x]\nflags = { \"-n\" = \"number\" }\n", `:2: commands.x.flags: "-n": unknown value type "number"`},
		{"[commands.x]\nallow = [\"x\", 3]\n", ":2: commands.x.allow: element 2: want a string, not an integer"},
		{"[commands.x]\ntarget_dir = \"yes\"\n", ":2: commands.x.target_dir: want true or false"},
		{"[commands.x]\nflags = { \"-n\" = \"bool\" }\nshort_values = \"joined\"\n", ":3: commands.x.short_values: unknown short_values mode"},
	}
	for _, tt := range tests {
		p := filepath.Join(t.TempDir(), "specs.toml")
		if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFile(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+tt.want) {
			t.Errorf("LoadFile(%q) = %v, want prefix %q", tt.content, err, p+tt.want)
		}
	}
}

// A spec's sandbox grants (network, caches, cache_query) reach the
// verdicts that allow its commands, and `clada specs` shows them.
func TestSandboxGrants(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeUserSpecs(t, root, `[commands.cat]
description = "cat with the network, for the test"
network = true
caches = ["~/.cache/cat", "$CAT_CACHE/x", "/var/cache/cat"]
cache_query = ["--cache-dirs"]
max_paths = 1
`)
	set, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	v := set.Check([]string{"cat"}, root, r)
	if v.Outcome != Allow {
		t.Fatalf("cat: %v %s", v.Outcome, v.Reason)
	}
	if !v.Network || !slices.Equal(v.Caches, []string{"~/.cache/cat", "$CAT_CACHE/x", "/var/cache/cat"}) ||
		!slices.Equal(v.CacheQuery, []string{"--cache-dirs"}) {
		t.Errorf("verdict grants: network %v, caches %q, query %q", v.Network, v.Caches, v.CacheQuery)
	}
	if d := set.Check([]string{"cat", "a", "b"}, root, r); d.Outcome != Deny || d.Network || d.Caches != nil {
		t.Errorf("a denied command carries grants: %+v", d)
	}
	if v := set.Check([]string{"head", "-n", "1"}, root, r); v.Outcome != Allow || v.Network || v.Caches != nil {
		t.Errorf("head (no grants): %+v", v)
	}
	var b strings.Builder
	if err := set.Print(&b, "cat"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"network: granted under the sandbox", "caches (writable under the sandbox): ~/.cache/cat $CAT_CACHE/x /var/cache/cat",
		"more caches: the lines `cat --cache-dirs` prints"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("clada specs cat does not say %q:\n%s", want, b.String())
		}
	}
}

// embedded is every spec file under specs/, for the tests that check
// embeddedFiles against them.
//
//go:embed default.toml packs/*.toml
var embedded embed.FS

// TestEmbeddedList: embeddedFiles, the strings every start splits, are
// exactly the files embedded (default.toml first, then every pack), with
// the same text, so a pack added under packs/ cannot be left out.
func TestEmbeddedList(t *testing.T) {
	t.Parallel()
	files, err := fs.Glob(embedded, "packs/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"default.toml"}, files...)
	if len(files) != len(embeddedFiles) {
		t.Errorf("%d files embedded, embeddedFiles lists %d", len(files), len(embeddedFiles))
	}
	for i, f := range files {
		data, err := embedded.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(embeddedFiles) || embeddedFiles[i].name != f || embeddedFiles[i].text != string(data) {
			t.Errorf("embeddedFiles[%d] is not %s: add it (with its //go:embed string) in internal/specs/spec.go", i, f)
		}
	}
}

// TestSplitSpecs checks lazySpecs.split against splitting line by line:
// the same sections (a subcommand table belongs to its command), with the
// same text and header line, for every embedded file and for edge cases.
func TestSplitSpecs(t *testing.T) {
	t.Parallel()
	byLines := func(data []byte) map[string]section {
		out := map[string]section{}
		lines := bytes.SplitAfter(data, []byte("\n"))
		name, start := "", 0
		flush := func(end int) {
			if _, dup := out[name]; name != "" && !dup {
				out[name] = section{line: start + 1, text: string(bytes.Join(lines[start:end], nil))}
			}
		}
		for i, ln := range lines {
			rest, ok := bytes.CutPrefix(ln, []byte("[commands."))
			if !ok {
				continue
			}
			n, _, _ := strings.Cut(string(rest), "]")
			n, _, _ = strings.Cut(n, ".")
			if n == name {
				continue
			}
			flush(i)
			name, start = n, i
		}
		flush(len(lines))
		return out
	}
	inputs := [][]byte{
		[]byte(""),
		[]byte("# no commands\n"),
		[]byte("[commands.a]\nx = 1\n"),
		[]byte("# head\n\n[commands.a]\nx = 1\n  [commands.not]\n[commands.b]\n[commands.c]"),
		[]byte("[commands.a]\n[commands.b.c]\ny = '[commands.d]'\n"),
		[]byte("[commands.a]\nx = 1\n[commands.a.sub.b]\ny = 2\n[commands.c]\n[commands.a]\n"),
	}
	files, err := fs.Glob(embedded, "packs/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no packs: %v", err)
	}
	for _, f := range append([]string{"default.toml"}, files...) {
		data, err := embedded.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	for _, data := range inputs {
		l := &lazySpecs{sections: map[string]section{}}
		l.split("f.toml", string(data))
		got, want := l.sections, byLines(data)
		if len(got) != len(want) {
			t.Errorf("%.60q: %d sections, want %d", data, len(got), len(want))
		}
		for name, w := range want {
			if g, ok := got[name]; !ok || g.line != w.line || g.text != w.text {
				t.Errorf("%.60q: section %q = line %d %q, want line %d %q", data, name, g.line, g.text, w.line, w.text)
			}
		}
	}
	if n := len(defaults().sections); n < 40 {
		t.Errorf("the embedded specs have %d sections", n)
	}
}
