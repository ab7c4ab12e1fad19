package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
)

// killOf is when a responder stopped agent in a sample: its killed
// session's human_intervention, else its last event.
func killOf(t *testing.T, ws *incident.Workspace, agent string) time.Time {
	t.Helper()
	ctx := context.Background()
	h, err := ws.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("agent", agent), evidence.Term("kind", evidence.KindHumanIntervention)), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range h.Events {
		if strings.Contains(ev.Message, "killed session") {
			return ev.Time
		}
	}
	h, err = ws.Search(ctx, evidence.Request{Query: evidence.Term("agent", agent), Sort: evidence.SortTimeDesc, Limit: 1})
	if err != nil || len(h.Events) == 0 {
		t.Fatalf("events of %s: %v", agent, err)
	}
	return h.Events[0].Time
}

// stateOf is how a check's status reads a layer's state.
var stateOf = map[capability.State]incident.CheckStatus{
	capability.Stopped: incident.CheckVerified, capability.Live: incident.CheckNotVerified, capability.CannotTell: incident.CheckNoEvidence,
}

// For every bundled sample, with its first-ranked agent killed when the
// responders killed it, check, the ranking, the report (md, json, html)
// and the subject's capabilities say the same of every layer and agent:
// what the one Assessment says.
func TestEveryOutputSaysTheSameVerdict(t *testing.T) {
	ctx := context.Background()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	for _, sample := range incidenttest.Samples(t) {
		t.Run(filepath.Base(sample), func(t *testing.T) {
			ws := incidenttest.New(t, sample)
			ranks, err := ws.AgentRanking(ctx)
			if err != nil || len(ranks) == 0 {
				t.Fatalf("ranking: %v", err)
			}
			subject := ranks[0].Agent
			if _, err := ws.SetSubject(ctx, who, []string{subject}); err != nil {
				t.Fatal(err)
			}
			if _, err := ws.SetStep(ctx, who, "contain.stop", incident.StepDone, killOf(t, ws, subject), "killed"); err != nil {
				t.Fatal(err)
			}
			a, err := ws.Assessment(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if a.State == "" || len(a.Layers) != len(capability.Layers()) {
				t.Fatalf("assessment: %+v", a)
			}
			t.Logf("%s: %s", subject, incident.Headline(a))

			// check: each layer's status and line are the Assessment's
			var layerSteps []string
			pb, err := ws.Playbook()
			if err != nil {
				t.Fatal(err)
			}
			for _, ref := range pb.LayerSteps() {
				layerSteps = append(layerSteps, ref.Step.ID)
			}
			results, err := ws.Check(ctx, who, layerSteps...)
			if err != nil {
				t.Fatal(err)
			}
			checked := map[string]incident.CheckStatus{}
			for _, r := range results {
				lv, ok := a.Layer(string(r.Layer.Layer))
				if r.Layer == nil || !ok || r.Status != stateOf[lv.State] || !strings.Contains(r.Detail, lv.Line) {
					t.Errorf("check %s: %s\nthe Assessment's line: %s", r.Step, r.Summary(), lv.Line)
					continue
				}
				if lv.LiveAfterKill != strings.HasPrefix(r.Summary(), "stopped at ") && lv.State == capability.Stopped {
					t.Errorf("check %s says %q, the layer was live after the kill: %v", r.Step, r.Summary(), lv.LiveAfterKill)
				}
				checked[lv.Layer] = r.Status
			}
			if wantErr := incident.Verdict(a); (wantErr == nil) != a.Contained {
				t.Errorf("check's exit answer %v, contained %v", wantErr, a.Contained)
			}

			// the ranking
			ranks, err = ws.AgentRanking(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range ranks {
				if r.Agent == subject && (r.Contained != a.Contained || r.Holds != a.Holds(subject) || r.Open && a.Contained) {
					t.Errorf("ranking of %s: contained %v holds %v open %v; the Assessment: contained %v holds %v", subject, r.Contained, r.Holds, r.Open, a.Contained, a.Holds(subject))
				}
				if r.Agent != subject && r.Contained {
					t.Errorf("ranking: %s, not the subject, is contained", r.Agent)
				}
			}

			// the report, as its JSON, Markdown and HTML say it
			rep, err := report.Build(ctx, ws, report.At(reportGenerated))
			if err != nil {
				t.Fatal(err)
			}
			var js, md, ht bytes.Buffer
			if err := json.NewEncoder(&js).Encode(rep); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteHTML(&ht); err != nil {
				t.Fatal(err)
			}
			var back report.Report
			if err := json.Unmarshal(js.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			headline := incident.Headline(a)
			if back.Front.Contained != a.Contained || back.Front.Status != headline {
				t.Errorf("report json: contained %v %q; the Assessment: %v %q", back.Front.Contained, back.Front.Status, a.Contained, headline)
			}
			if a.Contained != !back.Summary.ContainedAt.IsZero() || a.Contained && !back.Summary.ContainedAt.Equal(a.ContainedAt) {
				t.Errorf("report summary contained at %s; the Assessment: %v at %s", back.Summary.ContainedAt, a.Contained, a.ContainedAt)
			}
			if !strings.Contains(md.String(), headline) {
				t.Errorf("report md lacks the headline %q", headline)
			}
			if !strings.Contains(ht.String(), html.EscapeString(headline)) {
				t.Errorf("report html lacks the headline %q", headline)
			}
			for _, l := range back.Layers {
				if want, ok := checked[string(l.Layer)]; !ok || l.Status != want {
					t.Errorf("report layer %s: %s; check: %s", l.Layer, l.Status, want)
				}
			}
			judged := 0
			for _, l := range append(back.Impact.Credentials, back.Impact.Capabilities...) {
				c := capability.Capability{Agent: l.Agent, Kind: l.Kind, Value: l.Value}
				v, ok := a.Of(&c)
				switch {
				case ok && l.Stopped != string(v.State):
					t.Errorf("report impact %s %s: %q; the Assessment: %q", l.Kind, l.Value, l.Stopped, v.State)
				case !ok && strings.HasPrefix(l.Value, "[SECRET-"):
					// a key the report's own redaction names: not the Assessment's key
				case !ok && l.Stopped != "not judged":
					t.Errorf("report impact %s %s: %q, but the Assessment does not judge it", l.Kind, l.Value, l.Stopped)
				case ok:
					judged++
				}
			}
			if judged == 0 && len(a.Capabilities) > 0 {
				t.Errorf("the report's impact table judges none of the %d capabilities the Assessment judges", len(a.Capabilities))
			}
			if os.Getenv("CORDON_AGREE_DUMP") != "" {
				t.Log(md.String())
			}
		})
	}
}
