package detect_test

import (
	"github.com/cordon-ir/cordon/capability"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/sample-incidents/truth"
)

func sampleCapabilities(t *testing.T, name string) *capability.Set {
	t.Helper()
	_, _, r := oneShot(t, name)
	return r.Capabilities
}

func findCap(caps []capability.Capability, kind capability.Kind, value string) (capability.Capability, bool) {
	for _, c := range caps {
		if c.Kind == kind && c.Value == value {
			return c, true
		}
	}
	return capability.Capability{}, false
}

// Every credential a sample's truth says one agent used of another's is in
// the user's capability set as acquired, owned by the victim; no credential
// issued to an agent is listed as acquired by that agent.
func TestCapabilitiesAgainstTruth(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "truth.yaml"))
	if err != nil || len(paths) < 4 {
		t.Fatalf("truth files: %v %v", paths, err)
	}
	for _, p := range paths {
		name := filepath.Base(filepath.Dir(p))
		t.Run(name, func(t *testing.T) {
			tr, err := truth.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			caps := sampleCapabilities(t, name)
			evs := loadSample(t, name)
			byOrigin := map[string]string{} // origin suffix -> proxy user
			for _, ev := range evs {
				if i := strings.Index(ev.Origin, name+"/"); i >= 0 && ev.User != "" {
					byOrigin[ev.Origin[i+len(name)+1:]] = ev.User
				}
			}
			for origin, rec := range tr.Attribution {
				if rec.UsedBy == "" || rec.CredentialOwner == "" {
					continue
				}
				cred := byOrigin[origin]
				c, ok := findCap(caps.For(rec.UsedBy), capability.Credential, cred)
				if !ok || c.Origin != capability.Acquired || c.Owner != rec.CredentialOwner {
					t.Errorf("%s: %s of %s used by %s: capability %+v (found %v)", origin, cred, rec.CredentialOwner, rec.UsedBy, c, ok)
				}
			}
			for _, s := range tr.Sessions {
				for _, cred := range s.Credentials {
					c, ok := findCap(caps.For(s.Agent), capability.Credential, cred)
					if !ok || c.Origin != capability.Granted {
						t.Errorf("%s's own %s: %+v (found %v)", s.Agent, cred, c, ok)
					}
				}
			}
		})
	}
}

// credential-theft: agent-12 acquired px-s228 by reading agent-9's
// proxy.env and used it from the CI runner through its job; a person's
// record says it was revoked at 10:34:12 (a claim), the proxy refused it
// from 10:34:27 (its end); the job's cancellation is a claim only.
func TestCredentialTheftCapabilities(t *testing.T) {
	caps := sampleCapabilities(t, "credential-theft").For("agent-12")
	c, ok := findCap(caps, capability.Credential, "px-s228")
	if !ok || !strings.Contains(c.How, "/run/secrets/eval/s-228/proxy.env") || endAt(c) != "10:34:27" || !claimedAt(c, "10:34:12") {
		t.Errorf("px-s228: %+v", c)
	}
	if u, ok := c.LastOK(); !ok || u.Time.Format("15:04:05") != "10:33:27" || u.From != "10.30.8.15" {
		t.Errorf("px-s228 last successful use: %+v", u)
	}
	p, ok := findCap(caps, capability.Place, "10.30.8.15")
	if !ok || p.Origin != capability.Acquired || endAt(p) != "10:34:27" {
		t.Errorf("place 10.30.8.15: %+v", p)
	}
	j, ok := findCap(caps, capability.Job, "ci-88213")
	if !ok || endAt(j) != "" || !claimedAt(j, "10:38:20") {
		t.Errorf("job ci-88213: %+v", j)
	}
	if _, ok := findCap(sampleCapabilities(t, "credential-theft").For("agent-9"), capability.Place, "10.30.8.15"); ok {
		t.Error("the victim agent-9 is listed as acting from the CI runner")
	}
}

// egress-probe-exfil: the 241 MB to acme-ci-scratch is agent-7's data out,
// admitted by the wildcard only; persistence-after-kill: the nohup'd
// watcher, the crontab and the unit are agent-21's, each with its end.
func TestDataOutAndPersistenceCapabilities(t *testing.T) {
	d, ok := findCap(sampleCapabilities(t, "egress-probe-exfil").For("agent-7"), capability.DataOut, "acme-ci-scratch.s3.amazonaws.com")
	if !ok || d.BytesOut < 241_000_000 || d.Allowlist != "wildcard" || d.Origin != capability.Acquired {
		t.Errorf("acme-ci-scratch: %+v", d)
	}
	caps := sampleCapabilities(t, "persistence-after-kill").For("agent-21")
	want := map[capability.Kind]string{ // kind -> the time a person says it ended
		capability.Schedule:  "15:06:35",
		capability.Persisted: "15:08:40",
	}
	for kind, end := range want {
		n := 0
		for _, c := range caps {
			if c.Kind == kind {
				n++
				if !claimedAt(c, end) || endAt(c) != "" {
					t.Errorf("%s %s ends %+v, want only a claim at %s", kind, c.Value, c.Ends, end)
				}
			}
		}
		if n == 0 {
			t.Errorf("no %s capability", kind)
		}
	}
	killed := false
	for _, c := range caps {
		if c.Kind == capability.Process && strings.Contains(c.How, "nohup") && claimedAt(c, "15:06:20") {
			killed = true
		}
	}
	if !killed {
		t.Errorf("the nohup'd watcher, killed by pid at 15:06:20, is not in the set: %+v", caps)
	}
}

// endAt is a capability's authoritative end as hh:mm:ss, "" for none.
func endAt(c capability.Capability) string {
	if e, ok := c.Ended(); ok {
		return e.At.Format("15:04:05")
	}
	return ""
}

// claimedAt says a claimed end of c is at hh:mm:ss.
func claimedAt(c capability.Capability, hms string) bool {
	for _, e := range c.Claims() {
		if e.At.Format("15:04:05") == hms {
			return true
		}
	}
	return false
}
