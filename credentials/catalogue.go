package credentials

import "strings"

// Tags normalization puts on an event that reads a credential location or
// asks a cloud metadata service, whatever its source and kind: TagCredRead,
// and TagCredClass followed by each class read (cred-class:aws).
const (
	TagCredRead  = "cred-read"
	TagCredClass = "cred-class:"
	// ClassMetadata is the class of a cloud metadata service.
	ClassMetadata = "cloud-metadata"
)

// Location is one entry of the credential catalogue: a place
// where credentials are kept, and the class of credential it holds.
type Location struct {
	// Class names what it holds: aws, gcp, azure, kube, registry, git,
	// github, npm, pypi, cargo, rubygems, terraform, ssh, gpg, vault,
	// proxy, env, tls, system, config, secret-store (and ClassMetadata for
	// the metadata services, which are hosts, not paths).
	Class string
	// Name is what a responder calls it ("AWS CLI credentials").
	Name string
	// Kinds are the substrings of a session_start credential kind
	// (aws-access-key, github-token) this location can hold; none: it can
	// hold anything, and no one credential can be named from the path.
	Kinds []string

	// How the path is matched, by structure rather than by pattern: Base
	// is the file name, BasePrefix a file-name prefix; Dir the directory
	// (one or more whole segments) the file is in or below, anywhere in
	// the path, so that a copy under any mount (/host/etc/shadow,
	// /mnt/shared/home/u/.aws/credentials) matches too. An entry with a
	// Dir and no file name is the directory and everything below it.
	Base, BasePrefix, Dir string
	// IsDir: the location is the directory Dir itself, whose packing or
	// listing reads what it holds; the files below it are other entries'
	// (~/.config holds gcloud's and gh's credentials, and pip's settings).
	IsDir bool
	// Home: the file sits directly in a home directory (~, /root,
	// /home/<user>, /Users/<user>), where a login writes it; the same name
	// in a project is that project's settings (a repository's .npmrc).
	Home bool
	// Except are file names (path.Match patterns) that sit where this
	// location does and are not secrets: public keys, templates.
	Except []string
}

// Holds reports whether a credential of the given kind (as a session_start
// names it) can be kept here.
func (l Location) Holds(kind string) bool {
	kind = strings.ToLower(kind)
	for _, k := range l.Kinds {
		if kind != "" && strings.Contains(kind, k) {
			return true
		}
	}
	return false
}

// Kinds of credential that several entries share.
var (
	awsKinds  = []string{"aws"}
	gcpKinds  = []string{"gcp", "google"}
	kubeKinds = []string{"kube", "k8s", "service-account", "serviceaccount"}
	regKinds  = []string{"registry", "docker", "ghcr", "ecr"}
	gitKinds  = []string{"github", "gitlab", "git", "bitbucket"}
	sshKinds  = []string{"ssh"}
)

// sshPublic are the files of ~/.ssh that hold no secret.
var sshPublic = []string{"*.pub", "known_hosts*", "authorized_keys*", "config"}

// credentialCatalogue is the catalogue, most specific first: the first
// entry that matches a path names it. docs/credentials.md lists it, and a
// test keeps the two the same.
var credentialCatalogue = []Location{
	{Class: "aws", Name: "AWS CLI credentials", Dir: ".aws", Base: "credentials", Kinds: awsKinds},
	{Class: "aws", Name: "AWS CLI config", Dir: ".aws", Base: "config", Kinds: awsKinds},
	{Class: "aws", Name: "AWS SSO token cache", Dir: ".aws/sso/cache", Kinds: awsKinds},
	{Class: "aws", Name: "AWS CLI directory (credential caches)", Dir: ".aws", Kinds: awsKinds},
	{Class: "gcp", Name: "Google application default credentials", Base: "application_default_credentials.json", Kinds: gcpKinds},
	{Class: "gcp", Name: "gcloud credential store", Dir: ".config/gcloud", Kinds: gcpKinds},
	{Class: "azure", Name: "Azure CLI tokens", Dir: ".azure", Kinds: []string{"azure"}},
	{Class: "kube", Name: "Kubernetes service-account token", Dir: "kubernetes.io/serviceaccount", Kinds: kubeKinds},
	{Class: "kube", Name: "kubeconfig", Dir: ".kube", Base: "config", Kinds: kubeKinds},
	{Class: "kube", Name: "kubeconfig directory", Dir: ".kube", IsDir: true, Kinds: kubeKinds},
	{Class: "kube", Name: "kubeconfig", Base: "kubeconfig", Kinds: kubeKinds},
	{Class: "kube", Name: "Kubernetes admin config and PKI", Dir: "etc/kubernetes", Kinds: kubeKinds},
	{Class: "kube", Name: "k3s/RKE2 admin kubeconfig", Dir: "etc/rancher", Kinds: kubeKinds},
	{Class: "registry", Name: "container registry login", Dir: ".docker", Base: "config.json", Kinds: regKinds},
	{Class: "registry", Name: "container registry login directory", Dir: ".docker", IsDir: true, Kinds: regKinds},
	{Class: "registry", Name: "container registry login", Dir: "containers", Base: "auth.json", Kinds: regKinds},
	{Class: "git", Name: "git credential store", Base: ".git-credentials", Kinds: gitKinds},
	{Class: "git", Name: "git credential store", Dir: ".config/git", Base: "credentials", Kinds: gitKinds},
	{Class: "git", Name: ".netrc logins", Base: ".netrc", Kinds: []string{"github", "gitlab", "git", "bitbucket", "proxy"}},
	{Class: "github", Name: "GitHub CLI token", Dir: "gh", Base: "hosts.yml", Kinds: []string{"github"}},
	{Class: "github", Name: "GitHub CLI config directory", Dir: ".config/gh", IsDir: true, Kinds: []string{"github"}},
	{Class: "config", Name: "user config directory (gcloud, gh, git credentials)", Dir: ".config", IsDir: true,
		Kinds: []string{"gcp", "google", "github", "gitlab", "git", "bitbucket"}},
	{Class: "npm", Name: "npm login token (user .npmrc)", Base: ".npmrc", Home: true, Kinds: []string{"npm"}},
	{Class: "pypi", Name: "PyPI upload token", Base: ".pypirc", Kinds: []string{"pypi"}},
	{Class: "cargo", Name: "crates.io token", Dir: ".cargo", Base: "credentials.toml", Kinds: []string{"cargo", "crates"}},
	{Class: "cargo", Name: "crates.io token", Dir: ".cargo", Base: "credentials", Kinds: []string{"cargo", "crates"}},
	{Class: "rubygems", Name: "RubyGems API key", Dir: ".gem", Base: "credentials", Kinds: []string{"rubygems", "gem"}},
	{Class: "terraform", Name: "Terraform Cloud token", Base: "credentials.tfrc.json", Kinds: []string{"terraform"}},
	{Class: "ssh", Name: "SSH private key", Dir: ".ssh", BasePrefix: "id_", Except: []string{"*.pub"}, Kinds: sshKinds},
	{Class: "ssh", Name: "SSH directory", Dir: ".ssh", Except: sshPublic, Kinds: sshKinds},
	{Class: "ssh", Name: "SSH private key (RSA)", Base: "id_rsa", Kinds: sshKinds},
	{Class: "ssh", Name: "SSH private key (Ed25519)", Base: "id_ed25519", Kinds: sshKinds},
	{Class: "ssh", Name: "SSH private key (ECDSA)", Base: "id_ecdsa", Kinds: sshKinds},
	{Class: "ssh", Name: "SSH private key (DSA)", Base: "id_dsa", Kinds: sshKinds},
	{Class: "ssh", Name: "SSH host private key", Dir: "etc/ssh", BasePrefix: "ssh_host_", Except: []string{"*.pub"}},
	{Class: "gpg", Name: "GPG keyring", Dir: ".gnupg", Except: []string{"*.conf", "pubring.*", "trustdb.gpg"}, Kinds: []string{"gpg", "pgp"}},
	{Class: "vault", Name: "Vault token", Base: ".vault-token", Kinds: []string{"vault"}},
	{Class: "proxy", Name: "proxy credential", Base: "proxy.env", Kinds: []string{"proxy"}},
	{Class: "env", Name: "dotenv file", Base: ".env"},
	{Class: "env", Name: "dotenv file", BasePrefix: ".env.", Except: []string{".env.example", ".env.sample", ".env.template", ".env.dist"}},
	{Class: "env", Name: "another process's environment", Dir: "proc", Base: "environ"},
	{Class: "system", Name: "database password file", Base: ".pgpass", Kinds: []string{"postgres", "database"}},
	{Class: "system", Name: "shadow password file", Dir: "etc", Base: "shadow"},
	{Class: "system", Name: "shadow password file", Dir: "etc", Base: "gshadow"},
	{Class: "system", Name: "sudoers", Dir: "etc", Base: "sudoers"},
	{Class: "system", Name: "old passwords", Dir: "etc/security", Base: "opasswd"},
	{Class: "system", Name: "Kerberos keytab", BasePrefix: "krb5.keytab"},
	{Class: "tls", Name: "TLS private keys", Dir: "etc/ssl/private"},
	{Class: "secret-store", Name: "mounted secrets (/run/secrets, /var/run/secrets)", Dir: "run/secrets"},
}

// Catalogue returns the catalogue's entries, most specific first.
func Catalogue() []Location {
	return append([]Location(nil), credentialCatalogue...)
}
