package detect

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
)

// What an agent creates on GitHub with a token it holds runs or
// authenticates without it: a webhook sends the repository's events to
// its URL, a deploy key clones and pushes, an Actions secret is handed to
// every workflow run. Each is a workload of the creator's; GitHub's audit
// log records its creation and its removal (hook.destroy, public_key.delete,
// the secret removed), which is its authoritative end. Their uses are not
// in the audit log (a hook's deliveries, a workflow reading a secret), so
// until that end they are live. Tokens a token creates are not read: the
// log names the new token by nothing a later call carries.

// ghCreations maps an action that creates to the kind it makes, and
// ghRemovals an action that removes to the same kind.
var (
	ghCreations = map[string]string{
		"hook.create": "github-webhook", "public_key.create": "github-deploy-key", "deploy_key.create": "github-deploy-key",
		"repo.create_actions_secret": "github-actions-secret", "org.create_actions_secret": "github-actions-secret",
		"environment.create_actions_secret": "github-actions-secret",
	}
	ghRemovals = map[string]string{
		"hook.destroy": "github-webhook", "public_key.delete": "github-deploy-key", "deploy_key.delete": "github-deploy-key",
		"repo.remove_actions_secret": "github-actions-secret", "org.remove_actions_secret": "github-actions-secret",
		"environment.remove_actions_secret": "github-actions-secret",
	}
)

// ghObject is the part of a GitHub audit event that names what it made.
type ghObject struct {
	Action      string      `json:"action"`
	Repo        string      `json:"repo"`
	Org         any         `json:"org"` // a name, or an id in some exports
	HookID      json.Number `json:"hook_id"`
	Fingerprint string      `json:"fingerprint"`
	Key         string      `json:"key"`
	Name        string      `json:"name"`
	Title       string      `json:"title"`
	Config      struct {
		URL string `json:"url"`
	} `json:"config"`
}

func (o *ghObject) org() string {
	switch v := o.Org.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// key names the object: its kind, where it lives, and its id (a hook's
// id, a key's fingerprint, a secret's name).
func (o *ghObject) key(kind string) string {
	where := firstOf(o.Repo, o.org())
	id := firstOf(o.HookID.String(), o.Fingerprint, o.Key, o.Name, o.Title)
	if where == "" || id == "" {
		return ""
	}
	return kind + ":" + where + "#" + id
}

// githubObject records a webhook, deploy key or Actions secret created
// with a token an agent held, and the removal of any such object.
func (s *capScan) githubObject(ev *evidence.Event) {
	if ev.Format != "github-audit" || ev.Decision == evidence.DecisionDeny {
		return
	}
	made, removed := ghCreations[ev.Method], ghRemovals[ev.Method]
	if made == "" && removed == "" {
		return
	}
	var o ghObject
	if json.Unmarshal([]byte(ev.Raw), &o) != nil {
		return
	}
	if removed != "" {
		if k := o.key(removed); k != "" {
			s.auth[k] = append(s.auth[k], capability.End{At: ev.Time, How: ev.Method, ID: ev.ID, By: issuerName(ev), Source: ev.Source, Authority: capability.Authoritative})
			s.endRecorded(k)
		}
		return
	}
	k := o.key(made)
	if k == "" {
		return
	}
	for _, agent := range s.githubHolders(ev) {
		c := s.entry(agent, capability.Workload, k, capability.Acquired)
		if c.How != "" {
			continue
		}
		c.Provenance, c.CredKind = capability.ByCreate, made
		c.How = ev.Method + " on " + firstOf(o.Repo, o.org()) + " with the token " + strings.Join(ev.Credential, ", ")
		if o.Config.URL != "" {
			c.How += ", sending to " + o.Config.URL
		}
		c.Acquired = []string{ev.ID}
		c.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, Format: ev.Format, From: ev.SrcIP})
	}
}

// githubHolders are the agents that held the token a GitHub call was made
// with: by its id as a session issued it, or by the logged form of a key
// their tool calls or outputs held.
func (s *capScan) githubHolders(ev *evidence.Event) []string {
	out := s.holders(ev)
	for _, cred := range ev.Credential {
		if k, ok := s.keyLogged[cred]; ok {
			for _, a := range s.keyHolders[k.Name] {
				out = appendNew(out, a)
			}
		}
	}
	return out
}
