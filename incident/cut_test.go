package incident_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/playbook"
)

// padding is a megabyte of harmless words: far more than the index keeps
// of a field.
var padding = strings.Repeat("echo ok; ", (1<<20)/9)

// paddedLedger is a session and its tool calls, two of them with what
// matters after a megabyte of padding.
func paddedLedger() []byte {
	var b strings.Builder
	b.WriteString(`{"v":1,"ts":"2026-07-21T10:00:00Z","type":"session_start","run":"r-1","agent":"agent-7","session":"s-1","model":"m-1","objective":"list /srv","sandbox":{"id":"sb-1","container_id":"c0ffee","ip":"10.0.3.7","host":"node-1"}}` + "\n")
	call := func(sec int, cmd string) {
		fmt.Fprintf(&b, `{"v":1,"ts":"2026-07-21T10:00:%02dZ","type":"tool_call","agent":"agent-7","session":"s-1","call_id":"c-%d","tool":"bash","args":{"cmd":%q}}`+"\n", sec, sec, cmd)
	}
	call(1, "ls /srv")
	call(2, padding+"cat ~/.aws/credentials")
	call(3, padding+"nohup /tmp/.x/beacon &")
	call(4, "echo "+padding)
	fmt.Fprintf(&b, `{"v":1,"ts":"2026-07-21T10:00:05Z","type":"tool_call","agent":"agent-7","session":"s-1","call_id":%q,"tool":"bash","args":{"cmd":"id"}}`+"\n", longCallID)
	return []byte(b.String())
}

// longCallID is a keyword longer than the index keeps of one.
var longCallID = "c-" + strings.Repeat("9", evidence.MaxKeyword)

// Regression: padding a field must not hide what follows from detection.
// The index keeps only the first evidence.MaxIndexed bytes of a field; the
// credential read after a megabyte of padding is still found by the
// built-in rule, because events with a field cut are matched whole.
func TestPaddedCommandLineDoesNotHideACredentialRead(t *testing.T) {
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "ledger.jsonl", paddedLedger()))
	ctx := context.Background()
	if n := ws.EvidenceStore().Counts().Cut; n != 4 {
		t.Fatalf("%d events with a field cut, want the 3 padded calls and the long call id", n)
	}
	h, err := ws.EvidenceStore().Search(ctx, evidence.Request{Query: evidence.MustParse("+cmdline:credentials")})
	if err != nil || h.Total != 0 {
		t.Fatalf("the index found the words after the padding (%v, %v): nothing was cut", h, err)
	}
	h, err = ws.EvidenceStore().Search(ctx, evidence.Request{Query: evidence.MustParse("+kind:tool_call +cut:cmdline")})
	if err != nil || h.Total != 3 {
		t.Fatalf("cut:cmdline finds %v (%v), want the 3 padded calls", h, err)
	}
	ev := h.Events[0]
	if !strings.HasSuffix(ev.Cmdline, "cat ~/.aws/credentials") || !slices.Contains(ev.Cut, "cmdline") {
		t.Fatalf("the stored event lost its command line's end or does not say it was cut: %d bytes, cut %v", len(ev.Cmdline), ev.Cut)
	}

	fs, err := incident.RunDetectors(ctx, ws.EvidenceStore(), incident.FindingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, f := range fs {
		for _, id := range f.Events {
			ev, err := ws.EvidenceStore().Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(ev.Cmdline, "cat ~/.aws/credentials") {
				found[f.Detector] = true
			}
			if strings.HasSuffix(ev.Cmdline, "nohup /tmp/.x/beacon &") {
				found[f.Detector] = true
			}
		}
	}
	for _, d := range []string{"credential-access", "persistence"} {
		if !found[d] {
			t.Errorf("%s did not see the padded command line: findings %v", d, found)
		}
	}

	// A kill-switch check sees it too: a padded persistence command after
	// containment is not "verified".
	step := &playbook.Step{ID: "contain.persist", Check: &playbook.Check{
		Title: "nothing scheduled", Expect: playbook.ExpectNone,
		Queries: []string{"+agent:agent-7 +cmdline:nohup"},
	}}
	r, err := incident.RunCheck(ctx, ws.EvidenceStore(), step, playbook.Vars{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != incident.CheckNotVerified || r.Matched != 1 {
		t.Errorf("check on a padded nohup: %+v", r)
	}
}

// What the detectors read from the store, cut fields and all, is what
// they read from the same events held whole in memory.
func TestStoreSourceMatchesCutEventsWhole(t *testing.T) {
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "ledger.jsonl", paddedLedger()))
	ctx := context.Background()
	var all []evidence.Event
	if err := (evidence.StoreSource{Store: ws.EvidenceStore()}).Each(ctx, evidence.MustParse(""), func(ev evidence.Event) error {
		all = append(all, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		t.Fatalf("%d events", len(all))
	}
	mem := detect.NewMemSource(all)
	for _, q := range []string{
		"cmdline:credentials", "credentials", "+kind:tool_call -cmdline:nohup",
		"cmdline:/cat|nohup/", "+kind:tool_call +cmdline:echo", "cmdline:ls", "-cmdline:ok",
		"kind:session_start OR cmdline:beacon", "+call_id:" + longCallID, "call_id:c-9*", "-call_id:" + longCallID,
	} {
		ids := func(src detect.Source) []string {
			var out []string
			if err := src.Each(ctx, evidence.MustParse(q), func(ev evidence.Event) error {
				out = append(out, ev.ID)
				return nil
			}); err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			return out
		}
		if got, want := ids(evidence.StoreSource{Store: ws.EvidenceStore(), PageSize: 2}), ids(mem); !slices.Equal(got, want) {
			t.Errorf("%q: store gives %v, the whole events %v", q, got, want)
		}
	}
}
