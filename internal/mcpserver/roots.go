package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listRootsTimeout bounds the roots/list request to the client.
const listRootsTimeout = 10 * time.Second

// roots checks the client's MCP roots against the project root: while
// the client offers a root that is not inside it, run and check are
// refused, since the model would believe it works in a directory clada
// does not serve. That is a refusal of the call, not a decision about a
// command, so it has no rule code. The list is asked for once and again
// after the client says it changed.
type roots struct {
	root string // the project root, symlinks resolved
	log  io.Writer

	mu      sync.Mutex
	known   bool   // refusal is up to date
	refusal string // why run and check are refused; "" when they are not
}

// changed forgets the client's list (notifications/roots/list_changed).
func (r *roots) changed() {
	r.mu.Lock()
	r.known = false
	r.mu.Unlock()
}

// check returns why commands are refused for this client, or "". A client
// that does not offer roots, or does not answer, is not refused: the
// project root alone confines every command.
func (r *roots) check(ctx context.Context, ss *mcp.ServerSession, caps *mcp.ClientCapabilities) string {
	//lint:ignore SA1019 roots are deprecated only from protocol 2026-07-28, which clada does not speak (legacyProtocols)
	if caps == nil || caps.RootsV2 == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.known {
		return r.refusal
	}
	ctx, cancel := context.WithTimeout(ctx, listRootsTimeout)
	defer cancel()
	//lint:ignore SA1019 as above: the protocols clada speaks have roots
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		fmt.Fprintf(r.log, "clada mcp: warning: the client offers roots but listing them failed: %v\n", err)
		return ""
	}
	r.refusal = ""
	for _, root := range res.Roots {
		if why := outside(r.root, root.URI); why != "" {
			r.refusal = why
			break
		}
	}
	r.known = true
	return r.refusal
}

// outside says why the MCP root uri is not inside root (symlinks
// resolved), or "" when it is.
func outside(root, uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return fmt.Sprintf("the client's root %s is not a file: URI of this machine, so clada cannot tell whether it lies inside the project root %s", uri, root)
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/") // file:///C:/src
	}
	p = filepath.Clean(filepath.FromSlash(p))
	if resolved, err := filepath.EvalSymlinks(p); err == nil {
		p = resolved
	}
	rel, err := filepath.Rel(root, p)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
		return ""
	}
	return fmt.Sprintf("the client's root %s is outside the project root %s that clada mcp serves", p, root)
}
