package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// Every JSON text in UTF-8 nested at most maxDepth deep is JSONC, no
// input makes the parser panic, and what it refuses it places inside the
// file.
func FuzzJSONC(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": [1, 2.5e3, "x\"y", true, null]}`, "// c\n{/* d */\"a\":1,}", `[`, `{"a":}`, "\xef\xbb\xbf{}", "{} // last", `{"a": "x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseJSONC(data)
		// Refused on purpose: bad UTF-8 (json.Valid accepts it in
		// strings) and nesting past maxDepth, which this many brackets
		// cannot reach.
		shallow := bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) <= maxDepth
		if err != nil && json.Valid(data) && utf8.Valid(data) && shallow {
			t.Fatalf("valid JSON %q refused: %v", data, err)
		}
		var se *SyntaxError
		if err != nil && (!errors.As(err, &se) || se.Line < 1 || se.Line > 1+bytes.Count(data, []byte("\n")) || se.Col < 1) {
			t.Fatalf("%q: error %v is not a position in the file", data, err)
		}
	})
}

// Whatever a settings file holds, install then uninstall leaves a file
// that parses and holds no clada hook, or refuses the file and leaves it
// as it was.
func FuzzInstallUninstall(f *testing.F) {
	for _, s := range []string{`{}`, `{"hooks": {"PreToolUse": []}}`, "{\n  \"hooks\": {\n    \"PreToolUse\": [ {\"matcher\": \"Bash\", \"hooks\": [] }, ] // x\n  }\n}",
		`{"hooks": {"PreToolUse": [{"hooks": [{"command": "clada hook claude-code"}]}]}}`, `{"a":1,/*x*/}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		o := InstallOptions{Agent: "claude-code", Root: dir, Clada: "clada"}
		path, _ := o.Path()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Install(o)
		var se *SettingsError
		if err != nil {
			if !errors.As(err, &se) {
				t.Fatalf("Install: %v", err)
			}
			if got, _ := os.ReadFile(path); string(got) != string(data) {
				t.Fatalf("a refused file was changed")
			}
			return
		}
		if _, _, err := Uninstall(o); err != nil {
			t.Fatalf("Uninstall after Install: %v", err)
		}
		after, _ := os.ReadFile(path)
		root, err := parseJSONC(after)
		if err != nil {
			t.Fatalf("after uninstall the file does not parse: %v\n%s", err, after)
		}
		if len(ours(after, root, mustAgent(t, "claude-code").settings, "claude-code")) > 0 {
			t.Fatalf("a clada hook is left:\n%s", after)
		}
	})
}
