package sigma

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// notExportable are the built-in rules Sigma cannot express: the
// correlations written in Go.
var notExportable = []string{"action-rate", "credential-misuse", "data-exfiltration", "denial-adaptation",
	"destination-expansion", "intent-mismatch", "plan-divergence", "tool-escalation"}

// exportLoad exports rules into a folder and loads the folder back.
func exportLoad(t *testing.T, rules []detect.Rule) ([]Exported, []NotExported, *Set) {
	t.Helper()
	out, not, err := Export(rules, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, ex := range out {
		if err := os.WriteFile(filepath.Join(dir, ex.File), ex.YAML, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	set, err := Load(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range set.Refused {
		t.Errorf("exported rule refused on loading back: %v", r)
	}
	return out, not, set
}

// findingKey is a finding but for its detector, title, id and wording.
func findingKey(f detect.Finding) string {
	evs := slices.Clone(f.Events)
	slices.Sort(evs)
	return fmt.Sprintf("%s %s %s–%s %s", f.Agent, f.Severity, f.Start.Format(time.RFC3339Nano), f.End.Format(time.RFC3339Nano), strings.Join(evs, ","))
}

func TestExportBuiltinRulesRoundTrip(t *testing.T) {
	builtin, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	out, not, set := exportLoad(t, builtin)
	var notIDs []string
	for _, n := range not {
		notIDs = append(notIDs, n.RuleID)
		if !strings.Contains(n.Reason, "written in Go") {
			t.Errorf("%s not exported: %s", n.RuleID, n.Reason)
		}
	}
	if !slices.Equal(notIDs, notExportable) {
		t.Errorf("not exported: %v, want %v", notIDs, notExportable)
	}
	if len(out)+len(not) != len(builtin) {
		t.Errorf("%d exported + %d not, of %d rules", len(out), len(not), len(builtin))
	}
	// each exported rule is one correlation rule back, by its name
	back := map[string]detect.Rule{}
	for _, r := range set.Rules {
		back[r.ID] = r
	}
	// a Sigma rule's findings are named by its id: the export's stable UUID
	for _, ex := range out {
		if r, ok := back[uuidFor(ex.RuleID)]; ok {
			back[ex.RuleID] = r
		}
	}
	samples, err := filepath.Glob("../sample-incidents/*/truth.yaml")
	if err != nil || len(samples) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	fired := 0
	for _, truth := range samples {
		name := filepath.Base(filepath.Dir(truth))
		evs := attributiontest.Sample(t, name)
		attribution.AttributeAll(evs)
		for _, ex := range out {
			orig := builtin[slices.IndexFunc(builtin, func(r detect.Rule) bool { return r.ID == ex.RuleID })]
			rt, ok := back[ex.RuleID]
			if !ok {
				t.Errorf("%s: not loaded back (have %v)", ex.RuleID, keys(back))
				continue
			}
			want := keysOf(scan(t, []detect.Rule{orig}, evs))
			got := keysOf(scan(t, []detect.Rule{rt}, evs))
			if !slices.Equal(got, want) {
				t.Errorf("%s on %s:\nexported gives %q\noriginal gives %q\n%s", ex.RuleID, name, got, want, ex.YAML)
			}
			fired += len(want)
		}
	}
	// the comparison means something only if the rules fire
	if fired < 5 {
		t.Errorf("only %d findings of the exported rules on the samples", fired)
	}
}

func keysOf(fs []detect.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, findingKey(f))
	}
	slices.Sort(out)
	return out
}

func keys(m map[string]detect.Rule) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A rule on one Sigma log source's events comes out in Sigma's taxonomy:
// category proxy, cs-host, not cordon's names.
func TestExportMapsFieldsBackToSigmaNames(t *testing.T) {
	r := detect.Rule{ID: "paste-upload", Title: "Paste upload", Severity: "high", Phase: "detect",
		Explain: "{{count}}", Query: []string{"source:proxy AND kind:net_request AND dst_host:pastebin.com AND method:POST"},
		Correlation: detect.Correlation{Type: detect.EventCount, Window: 5 * time.Minute, Condition: detect.Condition{Gte: detect.Num(2)}}}
	out, not, set := exportLoad(t, []detect.Rule{r})
	if len(not) > 0 || len(out) != 1 {
		t.Fatalf("exported %d, not %v", len(out), not)
	}
	y := string(out[0].YAML)
	for _, want := range []string{"category: proxy", "cs-host|cased: pastebin.com", "cs-method|cased: POST", "group-by:\n    - agent", "timespan: 5m", "gte: 2"} {
		if !strings.Contains(y, want) {
			t.Errorf("no %q in\n%s", want, y)
		}
	}
	if strings.Contains(y, "source|") || strings.Contains(y, "net_request") {
		t.Errorf("the log source's own conditions are left in:\n%s", y)
	}
	evs := []evidence.Event{
		request("p1", "agent-7", 0, "POST", "https://pastebin.com/api", "pastebin.com"),
		request("p2", "agent-7", 60, "POST", "https://pastebin.com/api", "pastebin.com"),
		request("p3", "agent-7", 90, "GET", "https://pastebin.com/raw", "pastebin.com"),
		request("p4", "agent-8", 30, "POST", "https://pastebin.com/api", "pastebin.com"),
	}
	ledger := evs[0]
	ledger.ID, ledger.Source, ledger.Format = "l1", evidence.SourceLedger, "cordon-ledger"
	evs = append(evs, ledger)
	got, want := keysOf(scan(t, set.Rules, evs)), keysOf(scan(t, []detect.Rule{r}, evs))
	if len(want) != 1 || !slices.Equal(got, want) {
		t.Errorf("exported gives %q, original %q", got, want)
	}
}

// The word-bounded regular expression finds the words the index finds,
// and not a word that only contains one.
func TestExportWordMatch(t *testing.T) {
	r := detect.Rule{ID: "crontab-word", Title: "crontab", Severity: "low", Phase: "detect", Explain: "{{count}}",
		Query:       []string{"cmdline:crontab OR path:/cron\\.d|rc\\.local/"},
		Correlation: detect.Correlation{Type: detect.EventCount, GroupBy: "id", Window: time.Minute, Condition: detect.Condition{Gte: detect.Num(1)}}}
	_, _, set := exportLoad(t, []detect.Rule{r})
	var evs []evidence.Event
	for i, c := range []string{"crontab -l", "/usr/bin/crontab -e", "CRONTAB", "sh -c 'crontab x'", "crontab.bak", "mycrontab",
		"crontabs", "a.crontab", "crontab_x", "echo crontab.", "x:crontab"} {
		evs = append(evs, exec(fmt.Sprintf("c%d", i), "agent-1", i, c))
	}
	for i, p := range []string{"/etc/cron.d/job", "/etc/cron.daily/x", "/etc/rc.local", "/etc/rc.localx", "/x/.cron.d"} {
		ev := exec(fmt.Sprintf("p%d", i), "agent-1", 100+i, "")
		ev.Kind, ev.Path = evidence.KindFileWrite, p
		evs = append(evs, ev)
	}
	got, want := fired(scan(t, set.Rules, evs), uuidFor("crontab-word")), fired(scan(t, []detect.Rule{r}, evs), "crontab-word")
	slices.Sort(got)
	slices.Sort(want)
	if len(want) < 5 || !slices.Equal(got, want) {
		t.Errorf("exported matches %v, the query %v", got, want)
	}
}

// What Sigma cannot say is listed, with the reason.
func TestExportRefusesWhatSigmaCannotSay(t *testing.T) {
	base := detect.Rule{ID: "x", Title: "x", Severity: "low", Phase: "detect", Explain: "{{count}}",
		Correlation: detect.Correlation{Type: detect.EventCount, Window: time.Minute, Condition: detect.Condition{Gte: detect.Num(1)}}}
	for _, tc := range []struct{ query, reason string }{
		{"nohup", "bare word"},
		{"cmdline:cron*", "prefix or wildcard over words"},
		{"cmdline:/cr.*tab/", "words and alternatives"},
		{"cmdline:crontab-l", "single plain word"},
	} {
		r := base
		r.Query = []string{tc.query}
		_, not, err := Export([]detect.Rule{r}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(not) != 1 || !strings.Contains(not[0].Reason, tc.reason) {
			t.Errorf("%s: %+v, want refused for %q", tc.query, not, tc.reason)
		}
	}
	r := base
	r.Query = []string{"kind:proc_exec"}
	r.Correlation.Gap = time.Hour
	if _, not, _ := Export([]detect.Rule{r}, nil); len(not) != 1 || !strings.Contains(not[0].Reason, "gap") {
		t.Errorf("gap: %+v", not)
	}
}
