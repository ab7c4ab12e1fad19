package sigma

import (
	"slices"
	"testing"
)

func TestPhaseOf(t *testing.T) {
	for _, c := range []struct {
		tags []string
		want string
	}{
		{[]string{"attack.persistence", "attack.t1053.003"}, "eradicate"},
		{[]string{"attack.t1552", "attack.Credential_Access"}, "contain"},
		{[]string{"attack.execution", "attack.exfiltration"}, "triage"}, // the first tactic
		{[]string{"attack.t1059", "cve.2021-44228"}, "detect"},
		{nil, "detect"},
	} {
		if got := phaseOf(c.tags); got != c.want {
			t.Errorf("phaseOf(%v) = %s, want %s", c.tags, got, c.want)
		}
	}
}

// A Sigma rule's findings keep its tags, and feed the phase they say.
func TestFindingsKeepTags(t *testing.T) {
	set, err := Load(nil, "testdata/sigmahq")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sampleFindings(t, set, "persistence-after-kill") {
		if f.Title != "Nohup Execution" {
			continue
		}
		if !slices.Equal(f.Tags, []string{"attack.execution", "attack.t1059.004"}) || f.Phase != "triage" {
			t.Errorf("tags %v phase %s, want the rule's tags and triage", f.Tags, f.Phase)
		}
		return
	}
	t.Error("no Nohup Execution finding")
}
