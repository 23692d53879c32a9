package hook

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/clada/clada/internal/specs"
)

// ScratchDirs are the directories where agent keeps output it tells its
// model to read, granted for reading while clada decides that agent's
// commands (issue 27), so that `tail -50 …/tasks/b1x9.output` is not a
// question each time:
//
//   - claude-code: Claude Code's per-user temporary directory,
//     $CLAUDE_CODE_TMPDIR (else the system's temporary directory, $TMPDIR
//     or /tmp) joined with claude-UID, where it writes background tasks'
//     output (…/PROJECT/SESSION/tasks/ID.output) and large tool results;
//     older versions used /tmp/claude-UID (macOS: /private/tmp) whatever
//     TMPDIR said, so that one counts too.
//   - gemini: the tool-outputs directories under ~/.gemini/tmp/PROJECT/,
//     where Gemini CLI saves a tool's truncated output and names the file
//     to the model.
//
// Cursor names no such files. Only directories that exist, are not
// symbolic links and (on Unix) belong to the person count: a directory
// another user made in /tmp grants nothing. They are granted for reading
// only; a credential store stays refused however it is reached, and a
// file there that links elsewhere is judged where it leads.
func ScratchDirs(agent string) []specs.GrantedDir {
	return scratchDirs(agent, []string{os.Getenv("CLAUDE_CODE_TMPDIR"), os.TempDir(), "/tmp", "/private/tmp"})
}

// scratchDirs is ScratchDirs with the temporary directories Claude Code
// may use given.
func scratchDirs(agent string, tmpBases []string) []specs.GrantedDir {
	var cands []string
	switch agent {
	case "claude-code":
		name := "claude-" + strconv.Itoa(uid())
		for _, base := range tmpBases {
			if base != "" && filepath.IsAbs(base) {
				cands = append(cands, filepath.Join(base, name))
			}
		}
	case "gemini":
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			found, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "tool-outputs"))
			cands = append(cands, found...)
		}
	}
	var out []specs.GrantedDir
	for _, c := range cands {
		fi, err := os.Lstat(c)
		if err != nil || !fi.IsDir() || !ownedByMe(fi) {
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o.Path == real
		}
		if !dup {
			out = append(out, specs.GrantedDir{Path: real})
		}
	}
	return out
}

// uid is the person's user id as Claude Code names its directory
// (process.getuid(), 0 where there is none, as on Windows).
func uid() int {
	if runtime.GOOS == "windows" {
		return 0
	}
	return os.Getuid()
}
