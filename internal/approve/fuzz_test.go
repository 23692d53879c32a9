package approve

import (
	"testing"
)

// FuzzCommandsFile checks that decoding arbitrary commands.toml text never
// panics, and that whatever decodes is written back by encodeCommands in
// a form that reads back the same.
func FuzzCommandsFile(f *testing.F) {
	for _, seed := range []string{
		"allowed = [\"npm test *\"]\nblocked = ['rm x']\n",
		"allowed = [\"grep a 'it'\\\\''s' \\\\\\\\\"]\n",
		"allowed = [\"echo '\\u00e9\\t'\"]\n",
		"allowed = [\n\"ls\",\n 3,\n]\n",
		"[x]\ny = 1\n",
		"blocked = \"rm\"",
		"allowed = [\"rm '*'\", \"npm # *\"]",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		allowed, blocked, err := decodeTOMLCommands("commands.toml", []byte(content), fakeParse)
		if err != nil {
			if _, ok := err.(*FileError); !ok {
				t.Fatalf("error %v is a %T, want *FileError", err, err)
			}
			return
		}
		c := &Commands{Allowed: allowed, Blocked: blocked}
		data := encodeCommands(c)
		a2, b2, err := decodeTOMLCommands("commands.toml", data, fakeParse)
		if err != nil {
			t.Fatalf("re-reading the written file: %v\n%s", err, data)
		}
		if !samePatterns(a2, allowed) || !samePatterns(b2, blocked) {
			t.Fatalf("round trip changed the lists:\n%s", data)
		}
	})
}
