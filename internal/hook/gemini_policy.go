package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Gemini CLI decides with its own policy, after the hook, whether to
// confirm a shell command with the person, and it checks the command as
// the hook rewrote it: every command clada allowed would bring up Gemini
// CLI's dialog showing `/…/clada exec --root … -- ARGV`, not the command
// (issue 28). clada's install therefore adds a policy rule that lets the
// rewritten lines run without that second confirmation. What clada asks
// about is never rewritten and still brings up the dialog, showing the
// command as the model wrote it, with clada's reason; what clada denies
// never reaches the policy.
//
// Gemini CLI 0.61.0 reads policy rules from ~/.gemini/policies/*.toml (the
// user tier; its workspace tier, .gemini/policies of the project, is
// disabled in that version: docs/reference/policy-engine.md), so the rule
// goes there for a project install too. It is safe to leave in place:
// a line that starts with `clada exec` and was not rewritten by the hook
// is decided again by clada exec, which never runs what needs approval.
// Plan mode is left out: there Gemini CLI's own read-only rules decide.

// geminiPolicyHeader starts the policy file clada writes; uninstall
// removes only a file that starts with it.
const geminiPolicyHeader = "# Written by `clada hook install gemini`; `clada hook uninstall gemini` removes it.\n"

// GeminiPolicyPath is the policy file install writes under home.
func GeminiPolicyPath(home string) string {
	return filepath.Join(home, ".gemini", "policies", "clada.toml")
}

// rewritePrefix is how a rewritten line starts: self, written as
// [Answer.Rewrite] writes it, and " exec".
func rewritePrefix(self string) string {
	return ShellQuote([]string{self}) + " exec"
}

// geminiPolicy is the policy file for the clada at self.
func geminiPolicy(self string) []byte {
	prefix, _ := json.Marshal(rewritePrefix(self)) // a JSON string is a TOML basic string
	return []byte(geminiPolicyHeader +
		"# clada's hook decides every shell command before Gemini CLI's policy does, and rewrites what\n" +
		"# it allows to clada exec, which decides again. This rule runs those lines without a second\n" +
		"# confirmation, whose dialog would show the rewritten line instead of the command. What clada\n" +
		"# asks about is not rewritten and still brings up Gemini CLI's dialog.\n" +
		"[[rule]]\n" +
		"toolName = \"run_shell_command\"\n" +
		"commandPrefix = " + string(prefix) + "\n" +
		"decision = \"allow\"\n" +
		"priority = 900\n" +
		"modes = [\"default\", \"autoEdit\", \"yolo\"]\n")
}

// InstallGeminiPolicy writes the policy file for the clada at self under
// home; changed is false when it was already there as it would be
// written. A file of the same name that clada did not write is an error,
// and is left alone.
func InstallGeminiPolicy(home, self string) (path string, changed bool, err error) {
	path = GeminiPolicyPath(home)
	want := geminiPolicy(self)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, want):
		return path, false, nil
	case err == nil && !bytes.HasPrefix(old, []byte(geminiPolicyHeader)):
		return path, false, fmt.Errorf("%s exists and clada did not write it; it was left alone (rename it to let clada write its rule)", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return path, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return path, false, err
	}
	return path, true, writeAtomic(path, want)
}

// UninstallGeminiPolicy removes the policy file under home if clada wrote
// it; removed is false when there is none. A file of the same name that
// clada did not write is left alone.
func UninstallGeminiPolicy(home string) (path string, removed bool, err error) {
	path = GeminiPolicyPath(home)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return path, false, err
	}
	if !bytes.HasPrefix(data, []byte(geminiPolicyHeader)) {
		return path, false, nil
	}
	return path, true, os.Remove(path)
}
