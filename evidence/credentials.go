package evidence

import (
	"path"
	"strings"
)

// CredentialLocation is one entry of the credential catalogue: a place
// where credentials are kept, and the class of credential it holds.
type CredentialLocation struct {
	// Class names what it holds: aws, gcp, azure, kube, registry, git,
	// github, npm, pypi, ssh, gpg, vault, proxy, env, tls, system,
	// secret-store, cloud-metadata.
	Class string
	// Name is what a responder calls it ("AWS CLI credentials").
	Name string
	// Kinds are the substrings of a session_start credential kind
	// (aws-access-key, github-token) this location can hold; none: it can
	// hold anything, and no one credential can be named from the path.
	Kinds []string

	// How the path is matched, by structure rather than by pattern: Base
	// is the file name; Dir a directory the file is in, anywhere in the
	// path (a copy under any mount matches); Under a directory at the
	// path's root; BasePrefix a file-name prefix.
	Base, Dir, Under, BasePrefix string
}

// Holds reports whether a credential of the given kind (as a session_start
// names it) can be kept here.
func (l CredentialLocation) Holds(kind string) bool {
	kind = strings.ToLower(kind)
	for _, k := range l.Kinds {
		if kind != "" && strings.Contains(kind, k) {
			return true
		}
	}
	return false
}

// credentialCatalogue is the catalogue, most specific first: the first
// entry that matches a path names it. docs/credentials.md lists it.
var credentialCatalogue = []CredentialLocation{
	{Class: "aws", Name: "AWS CLI credentials", Dir: ".aws", Base: "credentials", Kinds: []string{"aws"}},
	{Class: "aws", Name: "AWS CLI config", Dir: ".aws", Base: "config", Kinds: []string{"aws"}},
	{Class: "aws", Name: "AWS SSO cache", Dir: ".aws/sso/cache", Kinds: []string{"aws"}},
	{Class: "gcp", Name: "Google application default credentials", Base: "application_default_credentials.json", Kinds: []string{"gcp", "google"}},
	{Class: "gcp", Name: "gcloud credential store", Dir: ".config/gcloud", Kinds: []string{"gcp", "google"}},
	{Class: "azure", Name: "Azure CLI tokens", Dir: ".azure", Kinds: []string{"azure"}},
	{Class: "kube", Name: "Kubernetes service-account token", Dir: "kubernetes.io/serviceaccount", Kinds: []string{"kube", "k8s", "service-account", "serviceaccount"}},
	{Class: "kube", Name: "kubeconfig", Dir: ".kube", Base: "config", Kinds: []string{"kube", "k8s"}},
	{Class: "kube", Name: "Kubernetes admin config", Under: "/etc/kubernetes", Kinds: []string{"kube", "k8s"}},
	{Class: "registry", Name: "container registry login", Dir: ".docker", Base: "config.json", Kinds: []string{"registry", "docker", "ghcr", "ecr"}},
	{Class: "registry", Name: "container registry login", Dir: "containers", Base: "auth.json", Kinds: []string{"registry", "docker", "ghcr"}},
	{Class: "git", Name: "git credential store", Base: ".git-credentials", Kinds: []string{"github", "gitlab", "git", "bitbucket"}},
	{Class: "git", Name: ".netrc logins", Base: ".netrc", Kinds: []string{"github", "gitlab", "git", "bitbucket", "proxy"}},
	{Class: "github", Name: "GitHub CLI token", Dir: "gh", Base: "hosts.yml", Kinds: []string{"github"}},
	{Class: "npm", Name: "npm registry token", Base: ".npmrc", Kinds: []string{"npm"}},
	{Class: "pypi", Name: "PyPI upload token", Base: ".pypirc", Kinds: []string{"pypi"}},
	{Class: "ssh", Name: "SSH private key", Dir: ".ssh", BasePrefix: "id_", Kinds: []string{"ssh"}},
	{Class: "ssh", Name: "SSH directory", Dir: ".ssh", Kinds: []string{"ssh"}},
	{Class: "gpg", Name: "GPG keyring", Dir: ".gnupg", Kinds: []string{"gpg", "pgp"}},
	{Class: "vault", Name: "Vault token", Base: ".vault-token", Kinds: []string{"vault"}},
	{Class: "proxy", Name: "proxy credential", Base: "proxy.env", Kinds: []string{"proxy"}},
	{Class: "env", Name: "dotenv file", Base: ".env"},
	{Class: "env", Name: "dotenv file", BasePrefix: ".env."},
	{Class: "env", Name: "another process's environment", Under: "/proc", Base: "environ"},
	{Class: "system", Name: "database password file", Base: ".pgpass", Kinds: []string{"postgres", "database"}},
	{Class: "system", Name: "shadow password file", Under: "/etc", Base: "shadow"},
	{Class: "system", Name: "shadow password file", Under: "/etc", Base: "gshadow"},
	{Class: "system", Name: "sudoers", Under: "/etc", Base: "sudoers"},
	{Class: "system", Name: "old passwords", Under: "/etc/security", Base: "opasswd"},
	{Class: "system", Name: "Kerberos keytab", BasePrefix: "krb5.keytab"},
	{Class: "tls", Name: "TLS private key", Under: "/etc/ssl/private"},
	{Class: "secret-store", Name: "mounted secrets", Under: "/run/secrets"},
	{Class: "secret-store", Name: "mounted secrets", Under: "/var/run/secrets"},
}

// CredentialCatalogue returns the catalogue's entries, most specific first.
func CredentialCatalogue() []CredentialLocation {
	return append([]CredentialLocation(nil), credentialCatalogue...)
}

// CredentialLocationOf names the credential location a file path is, if
// any. A relative path is taken from the root (sensors sometimes drop the
// leading slash); "~" counts as a home directory.
func CredentialLocationOf(p string) (CredentialLocation, bool) {
	if p == "" {
		return CredentialLocation{}, false
	}
	p = strings.TrimPrefix(p, "~")
	p = path.Clean("/" + p)
	base := path.Base(p)
	dir := path.Dir(p)
	for _, l := range credentialCatalogue {
		if l.matches(p, dir, base) {
			return l, true
		}
	}
	return CredentialLocation{}, false
}

func (l CredentialLocation) matches(p, dir, base string) bool {
	if l.Base != "" && base != l.Base {
		return false
	}
	if l.BasePrefix != "" && !strings.HasPrefix(base, l.BasePrefix) {
		return false
	}
	if l.Under != "" && p != l.Under && !strings.HasPrefix(p, l.Under+"/") {
		return false
	}
	if l.Dir != "" {
		// the file is in Dir, or somewhere below it
		d := "/" + l.Dir
		if !strings.HasSuffix(dir, d) && !strings.Contains(dir+"/", d+"/") {
			return false
		}
	}
	return l.Base != "" || l.BasePrefix != "" || l.Under != "" || l.Dir != ""
}

// CredentialPathsIn returns the credential locations a command line names,
// in order, each once: the words of a shell command split at spaces,
// quotes, redirections, assignments and substitutions.
func CredentialPathsIn(cmdline string) []string {
	if cmdline == "" || !strings.ContainsAny(cmdline, "/~.") {
		return nil
	}
	words := strings.FieldsFunc(cmdline, func(r rune) bool {
		switch r {
		case ' ', '\t', '\n', '"', '\'', '`', '=', ';', '|', '&', '<', '>', '(', ')', '$', ',', '{', '}':
			return true
		}
		return false
	})
	var out []string
	for _, w := range words {
		if !strings.ContainsAny(w, "/~") && !strings.HasPrefix(w, ".") {
			continue
		}
		if _, ok := CredentialLocationOf(w); ok && !containsString(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
