package specs

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clada/clada/internal/rules"
)

func TestUnwrap(t *testing.T) {
	t.Parallel()
	type want struct {
		Opts, Inner   []string
		Chdir, Output string
		Append, Clear bool
		Help, Opaque  bool
		AskWord       string
		DenyRule      rules.Rule
		DenyWord      string
	}
	tests := []struct {
		name string
		argv []string
		want want
	}{
		{"env alone asks", []string{"env"}, want{AskWord: "env"}},
		{"env cmd", []string{"env", "ls", "-l"}, want{Inner: []string{"ls", "-l"}}},
		{"env -i", []string{"env", "-i", "go", "version"}, want{Opts: []string{"-i"}, Inner: []string{"go", "version"}, Clear: true}},
		{"env --ignore-environment", []string{"env", "--ignore-environment", "ls"}, want{Opts: []string{"--ignore-environment"}, Inner: []string{"ls"}, Clear: true}},
		{"env lone dash clears", []string{"env", "-", "ls"}, want{Opts: []string{"-"}, Inner: []string{"ls"}, Clear: true}},
		{"env abbreviated --ign is ambiguous", []string{"env", "--ign", "ls"}, want{Opaque: true, AskWord: "--ign"}},
		{"env --ignore-e abbreviation", []string{"env", "--ignore-e", "ls"}, want{Opts: []string{"--ignore-e"}, Inner: []string{"ls"}, Clear: true}},
		{"env safe assignment", []string{"env", "LANG=C", "LC_ALL=C.UTF-8", "ls"}, want{Opts: []string{"LANG=C", "LC_ALL=C.UTF-8"}, Inner: []string{"ls"}}},
		{"env PATH asks", []string{"env", "PATH=/tmp", "ls"}, want{Opts: []string{"PATH=/tmp"}, Inner: []string{"ls"}, AskWord: "PATH=/tmp"}},
		{"env LD_PRELOAD asks", []string{"env", "LANG=C", "LD_PRELOAD=/x.so", "ls"}, want{Opts: []string{"LANG=C", "LD_PRELOAD=/x.so"}, Inner: []string{"ls"}, AskWord: "LD_PRELOAD=/x.so"}},
		{"env locale as a path asks", []string{"env", "LC_ALL=/tmp/loc", "ls"}, want{Opts: []string{"LC_ALL=/tmp/loc"}, Inner: []string{"ls"}, AskWord: "LC_ALL=/tmp/loc"}},
		{"env TZ zone name", []string{"env", "TZ=Europe/Paris", "date"}, want{Opts: []string{"TZ=Europe/Paris"}, Inner: []string{"date"}}},
		{"env TZ file asks", []string{"env", "TZ=:/etc/passwd", "date"}, want{Opts: []string{"TZ=:/etc/passwd"}, Inner: []string{"date"}, AskWord: "TZ=:/etc/passwd"}},
		{"env TZ dotdot asks", []string{"env", "TZ=../../tmp/fifo", "date"}, want{Opts: []string{"TZ=../../tmp/fifo"}, Inner: []string{"date"}, AskWord: "TZ=../../tmp/fifo"}},
		{"env unknown name asks", []string{"env", "FOO=1", "ls"}, want{Opts: []string{"FOO=1"}, Inner: []string{"ls"}, AskWord: "FOO=1"}},
		{"env -u", []string{"env", "-u", "HOME", "ls"}, want{Opts: []string{"-u", "HOME"}, Inner: []string{"ls"}}},
		{"env -uHOME", []string{"env", "-iuHOME", "ls"}, want{Opts: []string{"-iuHOME"}, Inner: []string{"ls"}, Clear: true}},
		{"env --unset=", []string{"env", "--unset=HOME", "ls"}, want{Opts: []string{"--unset=HOME"}, Inner: []string{"ls"}}},
		{"env -u takes the next word even if it looks like an option", []string{"env", "-u", "-i", "ls"}, want{Opts: []string{"-u", "-i"}, Inner: []string{"ls"}}},
		{"env -C", []string{"env", "-C", "sub", "ls"}, want{Opts: []string{"-C", "sub"}, Inner: []string{"ls"}, Chdir: "sub"}},
		{"env --chdir=", []string{"env", "--chdir=/", "rm", "x"}, want{Opts: []string{"--chdir=/"}, Inner: []string{"rm", "x"}, Chdir: "/"}},
		{"env --ch abbreviation", []string{"env", "--ch", "..", "ls"}, want{Opts: []string{"--ch", ".."}, Inner: []string{"ls"}, Chdir: ".."}},
		{"env -S is opaque", []string{"env", "-S", "ls -l"}, want{Opaque: true, AskWord: "-S"}},
		{"env -iS cluster is opaque", []string{"env", "-iSls"}, want{Opaque: true, AskWord: "-iSls"}},
		{"env --split-string abbreviation is opaque", []string{"env", "--sp=ls"}, want{Opaque: true, AskWord: "--sp=ls"}},
		{"env optional signal value never takes the next word", []string{"env", "--default-signal", "sudo", "ls"},
			want{Opts: []string{"--default-signal"}, Inner: []string{"sudo", "ls"}}},
		{"env --ignore-signal=PIPE", []string{"env", "--ignore-signal=PIPE", "ls"}, want{Opts: []string{"--ignore-signal=PIPE"}, Inner: []string{"ls"}}},
		{"env options stop at the first operand", []string{"env", "A=1", "-i", "ls"}, want{Opts: []string{"A=1"}, Inner: []string{"-i", "ls"}, AskWord: "A=1"}},
		{"env --", []string{"env", "--", "-i"}, want{Opts: []string{"--"}, Inner: []string{"-i"}}},
		{"env unknown option is opaque", []string{"env", "-P", "/tmp", "ls"}, want{Opaque: true, AskWord: "-P"}},
		{"env --help", []string{"env", "--help", "sudo"}, want{Opts: []string{"--help", "sudo"}, Help: true}},
		{"env --he abbreviation", []string{"env", "--he"}, want{Opts: []string{"--he"}, Help: true}},
		{"env bool option with value", []string{"env", "--null=1", "ls"}, want{Opaque: true, AskWord: "--null=1"}},
		{"env -u missing value", []string{"env", "-u"}, want{DenyRule: rules.FlagValue, DenyWord: "-u"}},
		{"env -u NAME=x", []string{"env", "-u", "A=b", "ls"}, want{DenyRule: rules.FlagValue, DenyWord: "-u"}},

		{"nice alone", []string{"nice"}, want{}},
		{"nice cmd", []string{"nice", "make"}, want{Inner: []string{"make"}}},
		{"nice -n", []string{"nice", "-n", "5", "ls"}, want{Opts: []string{"-n", "5"}, Inner: []string{"ls"}}},
		{"nice -n -5", []string{"nice", "-n", "-5", "ls"}, want{Opts: []string{"-n", "-5"}, Inner: []string{"ls"}}},
		{"nice -n5", []string{"nice", "-n5", "ls"}, want{Opts: []string{"-n5"}, Inner: []string{"ls"}}},
		{"nice -5", []string{"nice", "-5", "ls"}, want{Opts: []string{"-5"}, Inner: []string{"ls"}}},
		{"nice --5", []string{"nice", "--5", "ls"}, want{Opts: []string{"--5"}, Inner: []string{"ls"}}},
		{"nice -+5", []string{"nice", "-+5", "ls"}, want{Opts: []string{"-+5"}, Inner: []string{"ls"}}},
		{"nice --adj=3", []string{"nice", "--adj=3", "ls"}, want{Opts: []string{"--adj=3"}, Inner: []string{"ls"}}},
		{"nice -n x", []string{"nice", "-n", "x", "ls"}, want{DenyRule: rules.FlagValue, DenyWord: "-n"}},

		{"timeout", []string{"timeout", "5", "ls"}, want{Opts: []string{"5"}, Inner: []string{"ls"}}},
		{"timeout units", []string{"timeout", "1.5m", "ls"}, want{Opts: []string{"1.5m"}, Inner: []string{"ls"}}},
		{"timeout -s -k", []string{"timeout", "-s", "KILL", "-k", "5s", "10", "make", "x"}, want{Opts: []string{"-s", "KILL", "-k", "5s", "10"}, Inner: []string{"make", "x"}}},
		{"timeout --kill-after=", []string{"timeout", "--kill-after=1", "--signal=9", "5", "ls"}, want{Opts: []string{"--kill-after=1", "--signal=9", "5"}, Inner: []string{"ls"}}},
		{"timeout --sig abbreviation", []string{"timeout", "--sig", "TERM", "5", "sudo"}, want{Opts: []string{"--sig", "TERM", "5"}, Inner: []string{"sudo"}}},
		{"timeout --preserve-status --foreground -v", []string{"timeout", "--preserve-status", "--foreground", "-v", "5", "ls"},
			want{Opts: []string{"--preserve-status", "--foreground", "-v", "5"}, Inner: []string{"ls"}}},
		{"timeout bad duration", []string{"timeout", "abc", "ls"}, want{DenyRule: rules.FlagValue, DenyWord: "abc"}},
		{"timeout bad kill-after", []string{"timeout", "-k", "x", "5", "ls"}, want{DenyRule: rules.FlagValue, DenyWord: "-k"}},
		{"timeout bad signal", []string{"timeout", "-s", "a b", "5", "ls"}, want{DenyRule: rules.FlagValue, DenyWord: "-s"}},
		{"timeout no duration", []string{"timeout"}, want{DenyRule: rules.Spec, DenyWord: "timeout"}},
		{"timeout no command", []string{"timeout", "5"}, want{DenyRule: rules.Spec, DenyWord: "timeout"}},

		{"time", []string{"time", "ls"}, want{Inner: []string{"ls"}}},
		{"time -o", []string{"time", "-o", "t.txt", "ls"}, want{Opts: []string{"-o", "t.txt"}, Inner: []string{"ls"}, Output: "t.txt"}},
		{"time -ao", []string{"time", "-ao", "t.txt", "ls"}, want{Opts: []string{"-ao", "t.txt"}, Inner: []string{"ls"}, Output: "t.txt", Append: true}},
		{"time --output=", []string{"time", "--output=t.txt", "-f", "%e", "ls"}, want{Opts: []string{"--output=t.txt", "-f", "%e"}, Inner: []string{"ls"}, Output: "t.txt"}},
		{"time --out abbreviation", []string{"time", "--out", "/tmp/x", "ls"}, want{Opts: []string{"--out", "/tmp/x"}, Inner: []string{"ls"}, Output: "/tmp/x"}},
		{"time -V", []string{"time", "-V"}, want{Opts: []string{"-V"}, Help: true}},

		{"stdbuf", []string{"stdbuf", "-oL", "-e0", "ls"}, want{Opts: []string{"-oL", "-e0"}, Inner: []string{"ls"}}},
		{"stdbuf --output=", []string{"stdbuf", "--output=1M", "ls"}, want{Opts: []string{"--output=1M"}, Inner: []string{"ls"}}},
		{"stdbuf bad mode", []string{"stdbuf", "-o", "/x", "ls"}, want{DenyRule: rules.FlagValue, DenyWord: "-o"}},

		{"nohup", []string{"nohup", "make"}, want{Inner: []string{"make"}}},
		{"nohup unknown option", []string{"nohup", "-x", "make"}, want{Opaque: true, AskWord: "-x"}},
		{"nohup alone", []string{"nohup"}, want{DenyRule: rules.Spec, DenyWord: "nohup"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, ok := Unwrap(tt.argv)
			if !ok {
				t.Fatalf("Unwrap(%q) not a simple wrapper", tt.argv)
			}
			got := want{Opts: u.Opts, Inner: u.Inner, Chdir: u.Chdir, Output: u.Output, Append: u.Append,
				Clear: u.ClearEnv, Help: u.Help, Opaque: u.Opaque, AskWord: u.AskWord}
			if u.Deny != nil {
				got.DenyRule, got.DenyWord = u.Deny.Rule, u.Deny.Word
				if u.Deny.Reason == "" || u.Deny.Advice == "" {
					t.Errorf("deny without reason or advice: %+v", u.Deny)
				}
			}
			if len(got.Opts) == 0 || u.Deny != nil || u.Opaque {
				got.Opts = nil // not used: the command is refused, or asked whole
			}
			if u.Opaque {
				got.Clear = false
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unwrap(%q) (-want +got):\n%s", tt.argv, diff)
			}
			if (u.AskWord != "") != (u.Ask != "") {
				t.Errorf("Ask %q with AskWord %q", u.Ask, u.AskWord)
			}
		})
	}
	for _, argv := range [][]string{{"xargs", "ls"}, {"sh", "-c", "ls"}, {"/usr/bin/env", "ls"}, {"ionice", "ls"}, {"ls"}, nil} {
		if _, ok := Unwrap(argv); ok {
			t.Errorf("Unwrap(%q) took apart what is no simple wrapper", argv)
		}
	}
}

func TestWrapperValues(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"5": true, "5s": true, "1.5m": true, ".5": true, "5.": true, "2h": true, "1d": true, "0": true,
		"1e3": true, "1E-2s": true, "1.5e+2": true,
		"": false, "s": false, "abc": false, "5x": false, "1.2.3": false, "-5": false, "1e": false, ".": false, "5ss": false, "0x10": false,
	} {
		if got := isDuration(s); got != want {
			t.Errorf("isDuration(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"TERM": true, "9": true, "RTMIN+1": true, "": false, "a b": false, "/x": false, "ABCDEFGHIJKLMNOPQ": false} {
		if got := isSignal(s); got != want {
			t.Errorf("isSignal(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"L": true, "0": true, "4096": true, "1M": true, "1KiB": true, "": false, "M": false, "1MiBs": false, "/x": false, "1.5M": false} {
		if got := isBufMode(s); got != want {
			t.Errorf("isBufMode(%q) = %v, want %v", s, got, want)
		}
	}
}
