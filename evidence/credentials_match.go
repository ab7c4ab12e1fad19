package evidence

import (
	"path"
	"strings"
)

// CredentialLocationOf names the credential location a file path is, if
// any: the first catalogue entry whose structure the path has. A relative
// path is taken from the root (sensors sometimes drop the leading slash);
// "~", "~user" and "$HOME" are home directories. A file name with shell
// wildcards (~/.aws/*, ~/.ssh/id_*) is the location it can name.
func CredentialLocationOf(p string) (CredentialLocation, bool) {
	p = credentialPath(p)
	if p == "" || p == "/" {
		return CredentialLocation{}, false
	}
	base, dir := path.Base(p), path.Dir(p)
	for _, l := range credentialCatalogue {
		if l.matches(p, dir, base) {
			return l, true
		}
	}
	return CredentialLocation{}, false
}

// IsCredentialPath reports whether a file path is a credential location.
func IsCredentialPath(p string) bool {
	_, ok := CredentialLocationOf(p)
	return ok
}

// credentialPath is p cleaned and rooted, a home directory written as
// /home/<user> (~ stands for the user when none is named).
func credentialPath(p string) string {
	p = strings.TrimSpace(p)
	for _, h := range []string{"${HOME}", "$HOME"} {
		if p == h || strings.HasPrefix(p, h+"/") {
			p = "~" + p[len(h):]
		}
	}
	switch {
	case p == "":
		return ""
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = "/home/~" + p[1:]
	case p[0] == '~':
		p = "/home/" + p[1:]
	}
	return path.Clean("/" + p)
}

func (l CredentialLocation) matches(p, dir, base string) bool {
	d := "/" + l.Dir
	if l.IsDir {
		return strings.HasSuffix(p, d)
	}
	if l.Base != "" && !nameIs(base, l.Base, l.Dir != "") {
		return false
	}
	if l.BasePrefix != "" && !namePrefix(base, l.BasePrefix, l.Dir != "") {
		return false
	}
	for _, x := range l.Except {
		if ok, _ := path.Match(x, base); ok {
			return false
		}
	}
	if l.Home && !homeDir(dir) {
		return false
	}
	if l.Dir != "" {
		// the file is in Dir or below it; an entry that names no file is
		// also the directory itself
		in := strings.Contains(dir+"/", d+"/")
		self := l.Base == "" && l.BasePrefix == "" && strings.HasSuffix(p, d)
		if !in && !self {
			return false
		}
	}
	return l.Base != "" || l.BasePrefix != "" || l.Dir != ""
}

// nameIs reports whether a file name is want, or a wildcard that names it.
func nameIs(base, want string, placed bool) bool {
	return base == want || wildcardNames(base, want, placed)
}

// namePrefix reports whether a file name starts with prefix, or is a
// wildcard that can name such a file (~/.ssh/*, .env*).
func namePrefix(base, prefix string, placed bool) bool {
	return strings.HasPrefix(base, prefix) || wildcardNames(base, prefix+"x", placed)
}

// wildcardNames reports whether a shell wildcard can name a file: as the
// shell expands it, a wildcard names no dot file unless it starts with a
// dot; and one that starts with a wildcard names a location only in the
// location's directory (placed): /work/app/* is not a read of every
// credential file a directory might hold.
func wildcardNames(glob, name string, placed bool) bool {
	i := strings.IndexAny(glob, "*?[")
	if i < 0 || i == 0 && !placed || strings.HasPrefix(name, ".") && !strings.HasPrefix(glob, ".") {
		return false
	}
	ok, _ := path.Match(glob, name)
	return ok
}

// homeDir reports a home directory: /root, /home/<user>, /Users/<user>.
func homeDir(dir string) bool {
	if dir == "/root" {
		return true
	}
	for _, h := range []string{"/home/", "/Users/"} {
		if rest, ok := strings.CutPrefix(dir, h); ok && rest != "" && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}
