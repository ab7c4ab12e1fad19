package assist

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestClaimCitingRealEventIsNotVerified is the regression test of
// "verified claims overclaim": "agent-7 is benign" citing agent-7's real
// session_start was marked verified. It cites real events, and that is
// all cordon can say; a claim that names what its events do not hold
// says which entity is missing.
func TestClaimCitingRealEventIsNotVerified(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	a := Verify(Answer{Claims: []Claim{
		{Text: "agent-7 is benign", EventIDs: []string{"ev01"}},
		{Text: "agent-7 exfiltrated to transfer.sh at 10:09", EventIDs: []string{"ev03"}},
	}}, p)
	benign, exfil := a.Claims[0], a.Claims[1]
	if !benign.CitesReal || !benign.Supported() || strings.Contains(strings.ToLower(benign.Verdict()), "verified") ||
		!strings.HasPrefix(benign.Verdict(), "cites real events") {
		t.Errorf("benign: %+v %q", benign, benign.Verdict())
	}
	if !exfil.CitesReal || exfil.Supported() {
		t.Fatalf("exfil: %+v", exfil)
	}
	v := exfil.Verdict()
	if !strings.Contains(v, `host "transfer.sh" is not in the cited events`) || !strings.Contains(v, `time "10:09"`) || strings.Contains(v, "agent-7") {
		t.Errorf("the verdict does not say what is missing: %q", v)
	}
	if a.Unsupported() != 1 || a.Uncited() != 0 {
		t.Errorf("unsupported %d uncited %d", a.Unsupported(), a.Uncited())
	}
}

func TestSupportEntities(t *testing.T) {
	evs := incidentEvents()
	evs[7].Message = "open /home/agent/.aws/credentials with cred-agent7-aws session s-231 from 10.0.0.7 bytes_out=4200000"
	st := openStore(t, evs)
	p := mustPacket(t, st, Selection{}, Budget{})
	cases := []struct {
		text    string
		cites   []string
		missing []string // substrings of Support.Missing, in order; none: supported
	}{
		{"agent-7 read /home/agent/.aws/credentials", []string{"ev08"}, nil},
		{"agent-7 read /etc/shadow", []string{"ev08"}, []string{`path "/etc/shadow"`}},
		{"agent-3 read the credentials", []string{"ev08"}, []string{`agent "agent-3"`}},
		{"used credential cred-agent7-aws in session s-231", []string{"ev08"}, nil},
		{"used cred-agent9-gcp", []string{"ev08"}, []string{`credential "cred-agent9-gcp"`}},
		{"session s-999 read it", []string{"ev08"}, []string{`session "s-999"`}},
		{"from 10.0.0.7", []string{"ev08"}, nil},
		{"from 10.0.0.8", []string{"ev08"}, []string{`ip "10.0.0.8"`}},
		{"sent 4.2 MB", []string{"ev08"}, nil},
		{"sent 9 MB", []string{"ev08"}, []string{`size "9 mb"`}},
		{"at 10:02 and 10:02:00Z", []string{"ev08"}, nil},
		{"at 10:07:00", []string{"ev08"}, []string{`time "10:07:00"`}},
		{"3 denied requests to pastebin.com", []string{"ev04", "ev05", "ev11"}, nil},
		{"5 denied requests to pastebin.com", []string{"ev04", "ev05", "ev11"}, []string{`count "5 denied requests" (the claim cites 3 events)`}},
		{"2 destinations in 10 seconds", []string{"ev04", "ev05", "ev06"}, nil},
		{"over 2 minutes", []string{"ev04", "ev05", "ev06"}, []string{`duration "2 minutes"`}},
		{"ev04 and ev06 show probing", []string{"ev04"}, []string{"event ev06 is named but not cited"}},
		{"the agent is benign", []string{"ev01"}, nil},
	}
	for _, c := range cases {
		cl := Verify(Answer{Claims: []Claim{{Text: c.text, EventIDs: c.cites}}}, p).Claims[0]
		got := strings.Join(cl.Support.Missing, " | ")
		if len(c.missing) == 0 && got != "" {
			t.Errorf("%q: missing %s (entities %v)", c.text, got, cl.Support.Entities)
		}
		for _, m := range c.missing {
			if !strings.Contains(got, m) {
				t.Errorf("%q: missing %q, want %q (entities %v)", c.text, got, m, cl.Support.Entities)
			}
		}
	}
}

func TestClaimReadsTheOldVerifiedField(t *testing.T) {
	var c Claim
	if err := json.Unmarshal([]byte(`{"text":"x","event_ids":["a"],"verified":true}`), &c); err != nil || !c.CitesReal || c.Support != nil {
		t.Fatalf("%+v %v", c, err)
	}
	if v := c.Verdict(); v != "cites real events (support not checked)" {
		t.Errorf("verdict %q", v)
	}
}
