package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock access rights (uapi/linux/landlock.h), named by what they allow.
const (
	llExecute     = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llWriteFile   = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llReadFile    = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir     = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llRemoveDir   = unix.LANDLOCK_ACCESS_FS_REMOVE_DIR
	llRemoveFile  = unix.LANDLOCK_ACCESS_FS_REMOVE_FILE
	llMakeChar    = unix.LANDLOCK_ACCESS_FS_MAKE_CHAR
	llMakeDir     = unix.LANDLOCK_ACCESS_FS_MAKE_DIR
	llMakeReg     = unix.LANDLOCK_ACCESS_FS_MAKE_REG
	llMakeSock    = unix.LANDLOCK_ACCESS_FS_MAKE_SOCK
	llMakeFifo    = unix.LANDLOCK_ACCESS_FS_MAKE_FIFO
	llMakeBlock   = unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
	llMakeSym     = unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llRefer       = unix.LANDLOCK_ACCESS_FS_REFER        // ABI 2
	llTruncate    = unix.LANDLOCK_ACCESS_FS_TRUNCATE     // ABI 3
	llIoctlDev    = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV    // ABI 5
	llResolveUnix = unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX // ABI 9

	llBindTCP    = unix.LANDLOCK_ACCESS_NET_BIND_TCP                              // ABI 4
	llConnectTCP = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP                           // ABI 4
	llBindUDP    = unix.LANDLOCK_ACCESS_NET_BIND_UDP                              // ABI 10
	llSendUDP    = unix.LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP                      // ABI 10
	llScopeUnix  = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET                       // ABI 6
	llScopeSig   = unix.LANDLOCK_SCOPE_SIGNAL                                     // ABI 6
	llReadRights = llExecute | llReadFile | llReadDir                             // what "readable" means
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev // rights a rule on a non-directory may hold
)

// llWriteRights are the rights that change the file system, as far as
// the kernel's ABI knows them.
func llWriteRights(abi int) uint64 {
	r := uint64(llWriteFile | llRemoveDir | llRemoveFile | llMakeChar | llMakeDir | llMakeReg |
		llMakeSock | llMakeFifo | llMakeBlock | llMakeSym)
	if abi >= 2 {
		r |= llRefer
	}
	if abi >= 3 {
		r |= llTruncate
	}
	return r
}

// landlockABI asks the kernel which Landlock ABI it offers: 0 with the
// reason when it offers none.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, errors.New("kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK)")
	case errno == unix.EOPNOTSUPP:
		return 0, errors.New("kernel has Landlock switched off (add landlock to the lsm= boot parameter)")
	case errno != 0:
		return 0, fmt.Errorf("kernel has no usable Landlock: %v", errno)
	}
	return int(v), nil
}

// rulesetAttr is struct landlock_ruleset_attr up to the scoped field
// (ABI 6); the kernel takes a shorter or longer struct as long as the
// fields it does not know are zero.
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// pathBeneathAttr is struct landlock_path_beneath_attr, which the kernel
// declares packed: 12 bytes.
type pathBeneathAttr struct {
	allowed  uint64
	parentFD int32
}

// rule gives access to path and, for a directory, everything beneath it.
type rule struct {
	path   string
	access uint64
}

// ruleset is one Landlock layer: what it handles (restricts) and what it
// grants: paths, and the TCP ports it may connect to (ABI 4).
type ruleset struct {
	handledFS, handledNet, scoped uint64
	rules                         []rule
	connectPorts                  []int
}

// llRuleNetPort is LANDLOCK_RULE_NET_PORT (ABI 4), which x/sys does not
// name.
const llRuleNetPort = 2

// netPortAttr is struct landlock_net_port_attr.
type netPortAttr struct {
	allowed uint64
	port    uint64
}

// create builds the kernel ruleset and returns its file descriptor
// (close-on-exec, as every Landlock descriptor is). A rule whose path has
// vanished since it was listed is dropped: what is not there cannot be
// granted.
func (rs *ruleset) create() (int, error) {
	attr := rulesetAttr{handledFS: rs.handledFS, handledNet: rs.handledNet, scoped: rs.scoped}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	for _, r := range rs.rules {
		if err := addPathRule(int(fd), r); err != nil {
			unix.Close(int(fd))
			return -1, err
		}
	}
	for _, port := range rs.connectPorts {
		attr := netPortAttr{allowed: llConnectTCP, port: uint64(port)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, llRuleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
			unix.Close(int(fd))
			return -1, fmt.Errorf("landlock rule for TCP port %d: %w", port, errno)
		}
	}
	return int(fd), nil
}

func addPathRule(rulesetFD int, r rule) error {
	pfd, err := unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %w", r.path, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", r.path, err)
	}
	access := r.access
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileRights // the kernel refuses directory rights on a file
	}
	if access == 0 {
		return nil
	}
	attr := pathBeneathAttr{allowed: access, parentFD: int32(pfd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", r.path, errno)
	}
	return nil
}

// restrictThread enforces the ruleset on the calling OS thread only (no
// TSYNC): the caller has locked the goroutine to a thread that starts one
// command and then dies.
func restrictThread(rulesetFD int) error {
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rulesetFD), 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// grantTree adds rules giving access to everything under path, except the
// paths for which skip returns true and what lies beneath them. A
// directory that holds a skipped path is not granted as a whole: it gets
// dirAccess itself (0 for none; Landlock rights on a directory reach its
// whole tree, so only listing can be given) and each entry is granted
// separately. Symbolic links are never granted: following one would grant
// its target, which is granted (or not) where it really is. Paths are
// absolute and already resolved.
func grantTree(rules []rule, path string, access, dirAccess uint64, t *tree) []rule {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink != 0 || t.skip(path, fi) {
		return rules
	}
	if !fi.IsDir() || !t.expand(path) {
		return append(rules, rule{path, access})
	}
	if dirAccess != 0 {
		rules = append(rules, rule{path, dirAccess})
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return rules
	}
	for _, e := range entries {
		rules = grantTree(rules, filepath.Join(path, e.Name()), access, dirAccess, t)
	}
	return rules
}

// tree says which paths grantTree leaves out, and which directories it
// must open up because something beneath them is left out.
type tree struct {
	excluded []string                       // resolved absolute paths left out with everything beneath
	filter   func(string, fs.FileInfo) bool // more paths to leave out (block devices); nil: none
	open     []string                       // directories always granted entry by entry (/dev)
}

func (t *tree) skip(path string, fi fs.FileInfo) bool {
	for _, x := range t.excluded {
		if path == x {
			return true
		}
	}
	return t.filter != nil && t.filter(path, fi)
}

// expand reports whether the directory path holds an excluded path, or is
// one of the directories always opened up, or lies in one.
func (t *tree) expand(path string) bool {
	for _, x := range t.excluded {
		if within(x, path) && x != path {
			return true
		}
	}
	for _, o := range t.open {
		if within(path, o) || within(o, path) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or lies beneath it.
func within(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// devFilter leaves out of the readable tree the devices that would read
// the machine's memory or disks raw (and with them every file, keys
// included): block devices, /dev/mem, /dev/kmem, /dev/port.
func devFilter(path string, fi fs.FileInfo) bool {
	if !within(path, "/dev") {
		return false
	}
	if fi.Mode()&fs.ModeDevice != 0 && fi.Mode()&fs.ModeCharDevice == 0 {
		return true
	}
	switch path {
	case "/dev/mem", "/dev/kmem", "/dev/port":
		return true
	}
	return false
}
