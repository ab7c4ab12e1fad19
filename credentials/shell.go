package credentials

import (
	"path"
	"strings"
)

// PathsIn returns the credential locations a command line names,
// in order, each once, whatever the command does with them.
func PathsIn(cmdline string) []string {
	var out []string
	credentialUses(cmdline, func(p string, _ bool) {
		out = appendOnce(out, p)
	})
	return out
}

// ReadsIn returns the credential locations a command line reads,
// in order, each once: every location it names except those it only
// writes (a redirection's target, tee's files, the destination of cp or
// mv, an -o output), removes, changes the mode of, or tests for. It is a
// reading of the words, not a shell: quotes and substitutions only
// separate words, so a path inside `python -c "open('…')"` counts.
func ReadsIn(cmdline string) []string {
	var out []string
	credentialUses(cmdline, func(p string, read bool) {
		if read {
			out = appendOnce(out, p)
		}
	})
	return out
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Programs by what they do to the files they name.
var (
	// shellWrappers run the command that follows them.
	shellWrappers = map[string]bool{"sudo": true, "doas": true, "env": true, "nohup": true, "time": true,
		"nice": true, "exec": true, "command": true, "builtin": true, "xargs": true, "stdbuf": true, "setsid": true}
	// noReadPrograms change or test a file without reading what it holds.
	noReadPrograms = map[string]bool{"rm": true, "rmdir": true, "shred": true, "unlink": true, "chmod": true,
		"chown": true, "chgrp": true, "touch": true, "mkdir": true, "truncate": true, "test": true, "[": true,
		"[[": true, "stat": true}
	// copyPrograms write their last operand and read the others.
	copyPrograms = map[string]bool{"cp": true, "mv": true, "install": true, "ln": true, "rsync": true, "scp": true}
	// outputOptions name a file the program writes.
	outputOptions = map[string]bool{"-o": true, "-O": true, "-out": true, "--output": true,
		"--output-document": true, "--out": true, "--outfile": true}
)

// shellToken is a word of a command line, or an operator: ';' for any
// command boundary (; | & newline parentheses backquotes $( ), '>' for a
// redirection that writes, '<' for one that reads, 'H' for a here-document
// (its delimiter follows) and 'S' for a here-string (data follows).
type shellToken struct {
	text string
	op   byte
}

// credentialUses calls f with each catalogue location the command line
// names, as written ($HOME as ~), and whether the command reads it.
func credentialUses(cmdline string, f func(p string, read bool)) {
	if cmdline == "" || !strings.ContainsAny(cmdline, "/~.") {
		return
	}
	var cmd []shellToken
	for _, t := range shellTokens(cmdline) {
		if t.op == ';' {
			commandUses(cmd, f)
			cmd = cmd[:0]
			continue
		}
		cmd = append(cmd, t)
	}
	commandUses(cmd, f)
}

func shellTokens(s string) []shellToken {
	if strings.Contains(s, "HOME") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "${HOME}", "~"), "$HOME", "~")
	}
	var out []shellToken
	start := -1
	flush := func(i int) {
		if start >= 0 {
			out = append(out, shellToken{text: s[start:i]})
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\r', '"', '\'', ',', '{', '}', '\\':
			flush(i)
		case ';', '|', '(', ')', '`', '\n':
			flush(i)
			out = append(out, shellToken{op: ';'})
		case '&':
			flush(i)
			if i+1 >= len(s) || s[i+1] != '>' { // &> sends both streams to a file
				out = append(out, shellToken{op: ';'})
			}
		case '$':
			flush(i)
			if i+1 < len(s) && s[i+1] == '(' {
				out = append(out, shellToken{op: ';'})
				i++
			}
		case '>':
			flush(i)
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '|') {
				i++
			}
			out = append(out, shellToken{op: '>'})
		case '<':
			flush(i)
			op := byte('<')
			if strings.HasPrefix(s[i:], "<<<") { // a here-string: the rest is data
				op, i = 'S', i+2
			} else if strings.HasPrefix(s[i:], "<<") { // a here-document's delimiter
				op, i = 'H', i+1
			}
			out = append(out, shellToken{op: op})
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(s))
	return out
}

// commandUses reads one simple command: assignments and wrappers before
// the program, redirections anywhere, then the operands as the program
// treats them.
func commandUses(toks []shellToken, f func(p string, read bool)) {
	use := func(w string, read bool) {
		if credentialWord(w) && IsPath(w) {
			f(w, read)
		}
	}
	prog, redirect, output := "", byte(0), false
	var operands []string
	for _, t := range toks {
		if t.op == 'S' {
			break // the here-string runs to the end of the command
		}
		if t.op != 0 {
			redirect = t.op
			continue
		}
		w := t.text
		switch {
		case redirect == 'H':
			redirect = 0
		case redirect != 0:
			use(w, redirect == '<')
			redirect = 0
		case output && !strings.Contains(w, "="): // ssh -o Name=value is no output
			use(w, false)
			output = false
		case prog == "":
			if k, v, ok := strings.Cut(w, "="); ok && k != "" && !strings.ContainsAny(k, "/~") {
				use(v, true) // VAR=path: the program reads it (KUBECONFIG=~/.kube/config)
				continue
			}
			if shellWrappers[path.Base(w)] || strings.HasPrefix(w, "-") {
				continue
			}
			prog = path.Base(w)
			use(w, true) // a program run from a secret store is read
		case strings.Contains(w, "="):
			k, v, _ := strings.Cut(w, "=")
			use(v, !outputOptions[k] && k != "of")
			output = false
		case outputOptions[w]:
			output = true
		case strings.HasPrefix(w, "-"):
		default:
			operands = append(operands, w)
		}
	}
	for i, w := range operands {
		switch {
		case noReadPrograms[prog], prog == "tee":
			use(w, false)
		case copyPrograms[prog] && len(operands) > 1 && i == len(operands)-1:
			use(w, false)
		default:
			use(w, true)
		}
	}
}

// credentialWord reports a word that can be a local path: it has a slash
// or a tilde or starts with a dot, and is not a URL (a remote /.env is
// not this machine's).
func credentialWord(w string) bool {
	return (strings.ContainsAny(w, "/~") || strings.HasPrefix(w, ".")) && !strings.Contains(w, "://")
}
