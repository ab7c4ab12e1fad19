package credentials

import (
	"path"
	"strings"
)

// LocationOf names the credential location a file path is, if
// any: the first catalogue entry whose structure the path has. A relative
// path is taken from the root (sensors sometimes drop the leading slash);
// "~", "~user" and "$HOME" are home directories. A file name with shell
// wildcards (~/.aws/*, ~/.ssh/id_*) is the location it can name.
func LocationOf(p string) (Location, bool) {
	p = credentialPath(p)
	if p == "" || p == "/" {
		return Location{}, false
	}
	q := pathParts{p: p, dir: path.Dir(p), base: path.Base(p)}
	q.wild = strings.ContainsAny(q.base, "*?[")
	for i, l := range credentialCatalogue {
		if l.matches(q, catalogueDirs[i]) {
			return l, true
		}
	}
	return Location{}, false
}

// catalogueDirs are the entries' directories as path suffixes ("/.aws"),
// built once: every event of every source is looked up.
var catalogueDirs = func() []string {
	out := make([]string, len(credentialCatalogue))
	for i, l := range credentialCatalogue {
		if l.Dir != "" {
			out[i] = "/" + l.Dir
		}
	}
	return out
}()

// IsPath reports whether a file path is a credential location.
func IsPath(p string) bool {
	_, ok := LocationOf(p)
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

// pathParts is a cleaned, rooted path, its directory and file name, and
// whether the name is a shell wildcard.
type pathParts struct {
	p, dir, base string
	wild         bool
}

// matches reports whether a path is the location; d is "/"+l.Dir.
func (l Location) matches(q pathParts, d string) bool {
	p, dir, base := q.p, q.dir, q.base
	if l.IsDir {
		return strings.HasSuffix(p, d)
	}
	placed := l.Dir != ""
	if l.Base != "" && base != l.Base && !(q.wild && wildcardNames(base, l.Base, placed)) {
		return false
	}
	if l.BasePrefix != "" && !strings.HasPrefix(base, l.BasePrefix) && !(q.wild && wildcardNames(base, l.BasePrefix+"x", placed)) {
		return false
	}
	if l.Home && !homeDir(dir) {
		return false
	}
	if l.Dir != "" {
		// the file is in Dir or below it (whole segments); an entry that
		// names no file is also the directory itself
		in := strings.HasSuffix(dir, d) || strings.Contains(dir, d) && strings.Contains(dir, d+"/")
		self := l.Base == "" && l.BasePrefix == "" && strings.HasSuffix(p, d)
		if !in && !self {
			return false
		}
	}
	for _, x := range l.Except {
		if ok, _ := path.Match(x, base); ok {
			return false
		}
	}
	return l.Base != "" || l.BasePrefix != "" || l.Dir != ""
}

// wildcardNames reports whether a shell wildcard can name a file (for a
// prefix entry, a file with that prefix). As the shell expands it, a
// wildcard names no dot file unless it starts with a dot; and one that
// starts with a wildcard names a location only in the location's own
// directory (placed): /work/app/* is not a read of every credential file a
// directory might hold.
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
