package detect_test

import (
	"context"
	"github.com/cordon-ir/cordon/capability"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// cloudSession is a session_start whose sandbox leaves the lab from
// 203.0.113.10 and whose grant is an AWS access key.
func cloudSession(agent, ip, key string) evidence.Event {
	ev := session(agent, ip, key)
	ev.Raw = `{"type":"session_start","sandbox":{"ip":"` + ip + `","egress_ip":"203.0.113.10"},"credentials":[{"id":"` + key + `","kind":"aws-access-key"}]}`
	return ev
}

// trailCall is a CloudTrail api_call made with key from ip.
func trailCall(sec float64, ip, key, name string, tags ...string) evidence.Event {
	ev := mk(sec, "", evidence.KindAPICall, "dst_host", "s3.amazonaws.com")
	ev.Source, ev.Format, ev.SrcIP, ev.Credential, ev.Method, ev.Tags = evidence.SourceAudit, "cloudtrail", ip, []string{key}, name, tags
	ev.ID += "-" + ip + name
	return ev
}

// keyRead is a sensor's record of agent's sandbox reading its AWS
// credentials file.
func keyRead(sec float64, ip string) evidence.Event {
	ev := mk(sec, "", evidence.KindCredAccess)
	ev.Source, ev.SrcIP, ev.Path, ev.Tags = evidence.SourceSensor, ip, "/home/agent/.aws/credentials", []string{credentials.TagCredRead, "cred-class:aws"}
	return ev
}

const key52 = "AKIAEVAL52EXAMPLE"

// A key its owner read from the credentials file, then used from outside
// every sandbox, is the owner's misuse and a host it acted from; a use
// through the lab's own egress is neither; the cloud's record of the
// key's deactivation ends it, and so does a refusal from then on.
func TestCloudKeyUsedOutsideEverySandbox(t *testing.T) {
	base := []evidence.Event{cloudSession("a", "10.0.5.2", key52), session("b", "10.0.5.3", "px-b"), keyRead(10, "10.0.5.2"),
		trailCall(20, "203.0.113.10", key52, "PutObject"), trailCall(100, "198.51.100.23", key52, "ListBuckets")}

	fs := runBuiltin(t, "credential-misuse", append([]evidence.Event{}, base...))
	if len(fs) != 1 || fs[0].Agent != "a" || fs[0].Title != "Its own credential in use outside every sandbox" ||
		!strings.Contains(fs[0].Explanation, "198.51.100.23 (no sandbox; its owner read it from a file)") ||
		strings.Contains(fs[0].Explanation, "203.0.113.10") {
		t.Fatalf("findings %+v", fs)
	}
	// nobody read it: the use is still misuse, charged to no agent
	fs = runBuiltin(t, "credential-misuse", []evidence.Event{cloudSession("a", "10.0.5.2", key52), trailCall(100, "198.51.100.23", key52, "ListBuckets")})
	if len(fs) != 1 || fs[0].Agent != "" {
		t.Errorf("unread key: %+v", fs)
	}

	for _, tc := range []struct {
		name, endHow string
		more         []evidence.Event
	}{
		{"revoked in the cloud's own log", "revoked",
			[]evidence.Event{trailCall(200, "203.0.113.99", "AKIARESPONDER", "UpdateAccessKey", credentials.TagRevokes+key52)}},
		{"refused from then on", "refused from then on",
			[]evidence.Event{trailCall(200, "198.51.100.23", key52, "ListBuckets", credentials.TagCredRefused),
				trailCall(260, "198.51.100.23", key52, "ListBuckets", credentials.TagCredRefused)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := append(append([]evidence.Event{}, base...), tc.more...)
			attribution.AttributeAll(evs)
			rules, _ := detect.Builtin()
			r, err := (&detect.Engine{Rules: rules}).Scan(context.Background(), detect.NewMemSource(evs))
			if err != nil {
				t.Fatal(err)
			}
			caps := r.Capabilities.For("a")
			cred, ok := findCap(caps, capability.Credential, key52)
			if !ok || cred.Origin != capability.Granted || cred.CredKind != "aws-access-key" || !endIs(cred, tc.endHow, t0.Add(200e9)) {
				t.Errorf("credential %+v", cred)
			}
			place, ok := findCap(caps, capability.Place, "198.51.100.23")
			if !ok || place.Origin != capability.Acquired || place.CredKind != "aws-access-key" || !endIs(place, "every credential used from it ended ("+tc.endHow+")", t0.Add(200e9)) {
				t.Errorf("place %+v (%v)", place, ok)
			}
			if _, ok := findCap(caps, capability.Place, "203.0.113.10"); ok {
				t.Error("the lab's egress address is a place the agent acted from")
			}
		})
	}
}

// endIs says c's authoritative end is how, at at.
func endIs(c capability.Capability, how string, at time.Time) bool {
	e, ok := c.Ended()
	return ok && e.How == how && e.At.Equal(at)
}
