package approve

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAddHost: always and never remember a host for a pattern in
// commands.toml's [[network]], the file reads back the same, a second
// answer for the same host moves it between the lists, and the hosts
// match only commands the pattern matches.
func TestAddHost(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, err := Add(root, ListAllowed, "make deps", fakeParse); err != nil {
		t.Fatal(err)
	}
	path, changed, err := AddHost(root, "npm install", "Registry.Example.", true, fakeParse)
	if err != nil || !changed {
		t.Fatalf("AddHost: %v, changed %v", err, changed)
	}
	if _, _, err := AddHost(root, "npm install", "telemetry.example", false, fakeParse); err != nil {
		t.Fatal(err)
	}
	if _, changed, err := AddHost(root, "npm install", "registry.example", true, fakeParse); err != nil || changed {
		t.Fatalf("AddHost of a host already allowed: %v, changed %v; want no change", err, changed)
	}
	if _, _, err := AddHost(root, "go mod download *", "goproxy.example", true, fakeParse); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[[network]]\npattern = \"npm install\"\nallow = [\"registry.example\"]\ndeny = [\"telemetry.example\"]\n",
		"[[network]]\npattern = \"go mod download *\"\nallow = [\"goproxy.example\"]\n",
		"allowed = [\n  \"make deps\",\n]",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("commands.toml lacks %q:\n%s", want, data)
		}
	}
	c, err := LoadCommands(root, fakeParse)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv        []string
		allow, deny []string
	}{
		{[]string{"npm", "install"}, []string{"registry.example"}, []string{"telemetry.example"}},
		{[]string{"npm", "install", "lodash"}, nil, nil}, // an exact pattern
		{[]string{"npm", "publish"}, nil, nil},
		{[]string{"go", "mod", "download", "x@v1"}, []string{"goproxy.example"}, nil},
		{[]string{"make", "deps"}, nil, nil},
	} {
		a, d := c.MatchHosts(tc.argv)
		if !slices.Equal(a, tc.allow) || !slices.Equal(d, tc.deny) {
			t.Errorf("MatchHosts(%q) = %q, %q; want %q, %q", tc.argv, a, d, tc.allow, tc.deny)
		}
	}
	// never after always moves the host to deny.
	if _, changed, err := AddHost(root, "npm install", "registry.example", false, fakeParse); err != nil || !changed {
		t.Fatalf("AddHost never: %v, changed %v", err, changed)
	}
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	a, d := c.MatchHosts([]string{"npm", "install"})
	if len(a) != 0 || !slices.Equal(d, []string{"telemetry.example", "registry.example"}) {
		t.Errorf("after never: MatchHosts = %q, %q", a, d)
	}
	// The allowed list was kept through every write.
	if _, ok := c.MatchAllowed([]string{"make", "deps"}); !ok {
		t.Error("the allowed pattern was lost")
	}
}

// TestAddHostRefusesBadInput: a host that is no host name, and an empty
// pattern, are refused and nothing is written.
func TestAddHostRefusesBadInput(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tc := range []struct{ pattern, host string }{
		{"npm install", "*"},
		{"npm install", "a b"},
		{"npm install", "x\x1b[2J.test"},
		{"npm install", "http://x.test/"},
		{"", "x.test"},
	} {
		if _, _, err := AddHost(root, tc.pattern, tc.host, true, fakeParse); err == nil {
			t.Errorf("AddHost(%q, %q) succeeded", tc.pattern, tc.host)
		}
	}
	if _, err := os.Stat(filepath.Join(root, DirName, CommandsFile)); !os.IsNotExist(err) {
		t.Errorf("a refused AddHost wrote commands.toml: %v", err)
	}
}

// TestNetworkUntrusted: the allow lists of an untrusted commands.toml are
// withheld (the file is named among the untrusted ones), its deny lists
// apply; once trusted, both apply.
func TestNetworkUntrusted(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, DirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := []byte("[[network]]\npattern = \"npm install\"\nallow = [\"evil.example\"]\ndeny = [\"t.example\"]\n")
	if err := os.WriteFile(filepath.Join(dir, CommandsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	tc := NewTrustCheck(root)
	c, err := LoadCommandsTrust(root, fakeParse, tc)
	if err != nil {
		t.Fatal(err)
	}
	a, d := c.MatchHosts([]string{"npm", "install"})
	if len(a) != 0 || !slices.Equal(d, []string{"t.example"}) {
		t.Errorf("untrusted: MatchHosts = %q, %q; want no allow, deny t.example", a, d)
	}
	if !slices.Contains(tc.Untrusted(), CommandsFile) {
		t.Errorf("Untrusted() = %q; want commands.toml named", tc.Untrusted())
	}
	if err := RecordTrust(root, map[string]string{CommandsFile: Hash(data)}, false); err != nil {
		t.Fatal(err)
	}
	c, err = LoadCommandsTrust(root, fakeParse, NewTrustCheck(root))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := c.MatchHosts([]string{"npm", "install"}); !slices.Equal(a, []string{"evil.example"}) {
		t.Errorf("trusted: allow = %q; want evil.example", a)
	}
}

// TestNetworkFileErrors: a [[network]] table that is not one is reported
// with its line, and the file is never rewritten.
func TestNetworkFileErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ content, want string }{
		{"network = [\"x\"]\n", "want [[network]] tables"},
		{"[[network]]\nallow = [\"x.test\"]\n", "has no pattern"},
		{"[[network]]\npattern = \"npm install\"\nallow = [\"*\"]\n", "network[1].allow"},
		{"[[network]]\npattern = \"npm install\"\nhosts = [\"x.test\"]\n", "unknown key \"hosts\""},
		{"[[network]]\npattern = \"\"\n", "empty pattern"},
		{"other = 1\n", "allowed, blocked and [[network]]"},
	} {
		root := t.TempDir()
		dir := filepath.Join(root, DirName)
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, CommandsFile)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCommands(root, fakeParse)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v; want one containing %q", tc.content, err, tc.want)
		}
		if _, _, err := AddHost(root, "npm install", "x.test", true, fakeParse); err == nil {
			t.Errorf("%q: AddHost rewrote a file that does not parse", tc.content)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.content {
			t.Errorf("%q: the file changed to %q", tc.content, got)
		}
	}
}
