package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clada/clada/internal/project"
)

// Codex (0.171.0) offers no MCP roots; it names the workspace in every
// tools/call instead, in _meta:
//
//	"_meta": {"x-codex-turn-metadata": {"workspaces": {"/abs/dir": {…}}, …}, "progressToken": 1, …}
//
// clada mcp takes those directories where it would take roots. Started
// without --root, it serves the project of the workspace (the outermost
// .clada/ up to the git top level, as clada finds a root from a working
// directory; a workspace in neither is no project, and must lie inside
// the root clada mcp serves): Codex starts the server in the directory it was started in
// (`codex -C sub` starts it in sub), which may lie below the project, or
// in another project than the one a later turn works on. Started with
// --root, the person fixed the root: a workspace outside it refuses run
// and check, as a root outside it does.

// workspacesOf returns the absolute workspace directories a call's _meta
// names, sorted; nil when it names none.
func workspacesOf(meta mcp.Meta) []string {
	turn, _ := meta["x-codex-turn-metadata"].(map[string]any)
	ws, _ := turn["workspaces"].(map[string]any)
	var dirs []string
	for dir := range ws {
		if filepath.IsAbs(dir) {
			dirs = append(dirs, filepath.Clean(dir))
		}
	}
	sort.Strings(dirs)
	return dirs
}

// forCall returns the server that serves a call of run or check, or why
// the call is refused. The MCP roots a client offers are checked against
// the root clada mcp started with; then the workspaces a call names in
// _meta choose the project; a call that names none is served here.
func (s *Server) forCall(ctx context.Context, req *mcp.CallToolRequest) (*Server, string) {
	if why := s.roots.check(ctx, req.Session, req.Session.InitializeParams().Capabilities); why != "" {
		return nil, why
	}
	dirs := workspacesOf(req.Params.Meta)
	if len(dirs) == 0 {
		return s, ""
	}
	inside := func(why string) (*Server, string) {
		for _, d := range dirs {
			if outside(s.roots.root, "file://"+filepath.ToSlash(d)) != "" {
				return nil, fmt.Sprintf("the client's workspace %s is outside the project root %s that clada mcp serves (%s)", d, s.p.Root, why)
			}
		}
		return s, ""
	}
	if s.o.Root != "" {
		return inside("--root")
	}
	root, how := project.FindRoot(dirs[0])
	for _, d := range dirs[1:] {
		if r, _ := project.FindRoot(d); r != root {
			return nil, fmt.Sprintf("the client's workspaces %s and %s belong to different projects (%s and %s)", dirs[0], d, root, r)
		}
	}
	if how == "working directory" {
		// No .clada/ and no git work tree above it: a directory, not a
		// project (a home, or /). clada mcp does not take one as its
		// root from the client; it must lie inside the root it serves.
		return inside("the workspace is in no git work tree and has no .clada/")
	}
	return s.serverFor(root)
}

// serverFor returns the server of the project at root: s itself, or one
// opened for it once, which shares s's jobs (job ids stay unique over
// the connection) and log.
func (s *Server) serverFor(root string) (*Server, string) {
	if resolved, err := filepath.EvalSymlinks(root); err == nil && resolved == s.roots.root {
		return s, ""
	}
	s.wsMu.Lock()
	defer s.wsMu.Unlock()
	if w := s.workspaces[root]; w != nil {
		return w, ""
	}
	o := s.o
	o.Root = root
	w, err := New(o)
	if err != nil {
		return nil, fmt.Sprintf("clada mcp could not open the project %s of the client's workspace: %s", root, projectError(err))
	}
	if w.sbWarning != "" {
		fmt.Fprintln(s.log, w.sbWarning)
	}
	fmt.Fprintf(s.log, "clada mcp: serving %s (the client's workspace)\n", w.p.Root)
	w.jobs, w.log = s.jobs, s.log
	if s.workspaces == nil {
		s.workspaces = map[string]*Server{}
	}
	s.workspaces[root] = w
	return w, ""
}

// closeWorkspaces releases the sandboxes of the servers opened for
// workspaces.
func (s *Server) closeWorkspaces() {
	s.wsMu.Lock()
	defer s.wsMu.Unlock()
	for _, w := range s.workspaces {
		w.sb.Close()
		w.idle.Stop()
	}
}
