//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompProgram assembles the seccomp filter every confined command
// runs under. Calls of another architecture (32-bit compat, x32) kill
// the process: their numbers differ and would slip past the checks.
// io_uring_setup, io_uring_enter and io_uring_register fail with ENOSYS,
// which programs take as "no io_uring" and fall back from: io_uring
// operations are not seen by this filter. Without the network, socket(2)
// fails with EACCES for every address family but AF_UNIX; with only
// clada's proxy (proxy set), AF_INET and AF_INET6 stream sockets of TCP
// (protocol 0 or IPPROTO_TCP) are allowed too, and Landlock holds their
// connections to the proxy's port: no UDP, raw, MPTCP or SCTP socket.
//
// The thread that starts commands (tid, in clada's process pid) shares
// their Landlock domain, and Landlock lets a process trace and signal its
// own domain: so attaching to a process (PTRACE_ATTACH, PTRACE_SEIZE;
// a debugger's child asking to be traced with PTRACE_TRACEME still
// works), reading or writing another's memory (process_vm_readv,
// process_vm_writev), taking its file descriptors (pidfd_getfd), and
// signalling clada's process or that thread (kill, tgkill,
// rt_tgsigqueueinfo of pid or -pid, tkill of tid) fail with EPERM.
//
// No call may set the setuid or setgid bit (S_ISUID 04000, S_ISGID
// 02000), which the gate refuses in modes too (specs.checkMode): chmod,
// fchmod, fchmodat and fchmodat2 with either bit in their mode fail with
// EPERM, and so do the calls that create a file with a mode (open, openat
// and creat with O_CREAT or O_TMPFILE, mknod, mknodat). mkdir and mkdirat
// fail with EPERM for S_ISUID only: Linux's mkdir(2) keeps neither bit
// (only the permissions and the sticky bit), a directory takes setgid
// from a setgid parent whatever the mode, and a program asking for the
// group-shared layout of such a tree (mkdir(d, 02775)) gets what it would
// get anyway. The filter compares the low 32 bits of the mode (the kernel
// reads a umode_t) and of open's flags. openat2, whose mode lies in a
// struct the filter cannot read, fails with ENOSYS, which libc and Go
// take as "no openat2" and fall back to openat from. A directory that
// already carries setgid (inherited on a shared tree) keeps it, but a
// chmod that would keep it (GNU chmod 755 DIR does) fails too: the
// filter cannot tell a directory from a file.
//
// Only amd64 and arm64 have one (seccomp_otherarch.go).
func seccompProgram(network, proxy bool, pid, tid int) (prog []bpf.RawInstruction, ok bool, err error) {
	ins := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: seccompArch, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS},
		bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
	}
	if seccompX32 {
		ins = append(ins,
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000, SkipFalse: 1},
			bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS})
	}
	for _, nr := range []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER} {
		ins = append(ins,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1},
			bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
	}
	eperm := bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)}
	allow := bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}
	for _, nr := range []uint32{unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD} {
		ins = append(ins, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, eperm)
	}
	// argIn is a block for system call nr that refuses it when the low
	// 32 bits of its first argument (an int: a request, pid or tid) are
	// one of vals, and allows it otherwise.
	argIn := func(nr uint32, vals ...uint32) []bpf.Instruction {
		block := []bpf.Instruction{bpf.LoadAbsolute{Off: 16, Size: 4}} // args[0], little-endian
		for _, v := range vals {
			block = append(block, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v, SkipFalse: 1}, eperm)
		}
		block = append(block, allow)
		return append([]bpf.Instruction{bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: uint8(len(block))}}, block...)
	}
	ins = append(ins, argIn(unix.SYS_PTRACE, unix.PTRACE_ATTACH, unix.PTRACE_SEIZE)...)
	for _, nr := range []uint32{unix.SYS_KILL, unix.SYS_TGKILL, unix.SYS_RT_TGSIGQUEUEINFO} {
		ins = append(ins, argIn(nr, uint32(pid), uint32(-pid))...)
	}
	ins = append(ins, argIn(unix.SYS_TKILL, uint32(tid))...)
	ins = append(ins, bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_OPENAT2, SkipFalse: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
	for _, mc := range append(modeCalls, seccompArchModeCalls...) {
		ins = append(ins, mc.block(eperm, allow)...)
	}
	if !network && !proxy {
		ins = append(ins,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipFalse: 4},
			// The kernel reads the domain as an int: the low 32 bits of
			// args[0] (little-endian on both architectures).
			bpf.LoadAbsolute{Off: 16, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
			bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
			bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)})
	}
	if !network && proxy {
		eacces := bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)}
		ins = append(ins,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipFalse: 14},
			bpf.LoadAbsolute{Off: 16, Size: 4}, // domain
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
			allow,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 2},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipTrue: 1},
			eacces,
			bpf.LoadAbsolute{Off: 24, Size: 4}, // type, with SOCK_NONBLOCK and SOCK_CLOEXEC
			bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipFalse: 3},
			bpf.LoadAbsolute{Off: 32, Size: 4}, // protocol
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipTrue: 2},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.IPPROTO_TCP, SkipTrue: 1},
			eacces,
			allow)
	}
	ins = append(ins, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW})
	prog, err = bpf.Assemble(ins)
	if err != nil {
		return nil, false, fmt.Errorf("assembling the seccomp filter: %w", err)
	}
	return prog, true, nil
}

// Mode bits the filter refuses (see seccompProgram).
const (
	setID    = unix.S_ISUID | unix.S_ISGID
	creating = unix.O_CREAT | unix.O_TMPFILE&^unix.O_DIRECTORY // the kernel creates with either (__O_TMPFILE)
)

// modeCall is a system call whose mode argument may not hold bits: the
// index of that argument and, for the open calls, of the flags that make
// the call use its mode (-1: it always does).
type modeCall struct {
	nr          uint32
	mode, flags int
	bits        uint32
}

// modeCalls are the calls of both architectures; seccompArchModeCalls
// adds the older ones amd64 still has.
var modeCalls = []modeCall{
	{nr: unix.SYS_FCHMOD, mode: 1, flags: -1, bits: setID},
	{nr: unix.SYS_FCHMODAT, mode: 2, flags: -1, bits: setID},
	{nr: unix.SYS_FCHMODAT2, mode: 2, flags: -1, bits: setID},
	{nr: unix.SYS_OPENAT, mode: 3, flags: 2, bits: setID},
	{nr: unix.SYS_MKNODAT, mode: 2, flags: -1, bits: setID},
	{nr: unix.SYS_MKDIRAT, mode: 2, flags: -1, bits: unix.S_ISUID},
}

// block is the filter's block for mc: EPERM when the low 32 bits of the
// mode argument hold one of mc.bits (and, for an open call, its flags
// create), allow otherwise. The arguments are 64-bit words from offset
// 16 of seccomp_data, little-endian on both architectures.
func (mc modeCall) block(eperm, allow bpf.Instruction) []bpf.Instruction {
	var body []bpf.Instruction
	if mc.flags >= 0 {
		body = append(body,
			bpf.LoadAbsolute{Off: uint32(16 + 8*mc.flags), Size: 4},
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: creating, SkipFalse: 3})
	}
	body = append(body,
		bpf.LoadAbsolute{Off: uint32(16 + 8*mc.mode), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: mc.bits, SkipFalse: 1},
		eperm, allow)
	return append([]bpf.Instruction{bpf.JumpIf{Cond: bpf.JumpEqual, Val: mc.nr, SkipFalse: uint8(len(body))}}, body...)
}

// installSeccomp installs prog on the calling thread. The thread must
// have no_new_privs set (or the filter would need CAP_SYS_ADMIN).
func installSeccomp(prog []bpf.RawInstruction) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: (*unix.SockFilter)(unsafe.Pointer(&prog[0]))}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
