package approve

import (
	"strings"
	"testing"
)

// TestConfigDirs: dirs parses into grants, refuses malformed entries with
// the key named, and an untrusted file's dirs are withheld (a cloned
// repository cannot grant its model a directory).
func TestConfigDirs(t *testing.T) {
	good := `dirs = [{ path = "../lib", access = "read" }, { path = "~/scratch", access = "write" }]`
	cfg, err := parseConfig("/p/.clada/config.toml", []byte(good), ScopeProject)
	if err != nil {
		t.Fatal(err)
	}
	want := []DirGrant{{Path: "../lib", From: "/p/.clada/config.toml"}, {Path: "~/scratch", Write: true, From: "/p/.clada/config.toml"}}
	if len(cfg.Dirs) != 2 || cfg.Dirs[0] != want[0] || cfg.Dirs[1] != want[1] {
		t.Fatalf("dirs = %+v, want %+v", cfg.Dirs, want)
	}
	if got := cfg.ShowValue("dirs"); got != `[{ path = "../lib", access = "read" }, { path = "~/scratch", access = "write" }]` {
		t.Errorf("ShowValue = %s", got)
	}
	if l := Loosened(cfg); len(l) != 1 || !strings.HasPrefix(l[0], "dirs = ") {
		t.Errorf("Loosened = %q, want dirs", l)
	}

	for _, tt := range []struct{ text, scope, want string }{
		{`dirs = "../lib"`, "project", "want a list"},
		{`dirs = [{ path = "../lib" }]`, "project", "no access"},
		{`dirs = [{ path = "../lib", access = "rw" }]`, "project", `access "rw"`},
		{`dirs = [{ access = "read" }]`, "project", "no path"},
		{`dirs = [{ path = "../lib", access = "read", mode = "x" }]`, "project", `unknown key "mode"`},
		{`dirs = [{ path = "../lib", access = "read" }]`, "user", "must be absolute or start with ~/"},
	} {
		scope := ScopeProject
		if tt.scope == "user" {
			scope = ScopeUser
		}
		_, err := parseConfig("/p/config.toml", []byte(tt.text), scope)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "dirs") {
			t.Errorf("%s (%s): err = %v, want one naming dirs and %q", tt.text, tt.scope, err, tt.want)
		}
	}

	user := ConfigLayer{Scope: ScopeUser, Trusted: true, Config: mustConfig(t, `dirs = [{ path = "/opt/shared", access = "read" }]`, ScopeUser)}
	project := ConfigLayer{Scope: ScopeProject, Trusted: false, Config: cfg}
	merged, withheld := MergeConfig(user, project)
	if len(merged.Dirs) != 1 || merged.Dirs[0].Path != "/opt/shared" || len(withheld) != 1 {
		t.Errorf("untrusted project: dirs = %+v, withheld %q; want only the user's, the project's withheld", merged.Dirs, withheld)
	}
	project.Trusted = true
	if merged, _ = MergeConfig(user, project); len(merged.Dirs) != 3 {
		t.Errorf("trusted project: dirs = %+v, want the user's and the project's", merged.Dirs)
	}
}

func mustConfig(t *testing.T, text string, scope Scope) Config {
	t.Helper()
	c, err := parseConfig("/x/config.toml", []byte(text), scope)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
