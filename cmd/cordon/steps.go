package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
	"github.com/spf13/cobra"
)

const stepArgs = "--incident DIR (start|done|skip) STEP_ID [--at TIME] [TEXT...]"

// cmdStep records a step's status in the journal. It needs no index, so it
// works while an ingest holds the workspace.
func cmdStep(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	at := fs.String("at", "", "for a step that records a time (contained_at): when it happened, RFC 3339 (default: now)")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "the journal entry as JSON")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		statuses := map[string]incident.StepStatus{"start": incident.StepStarted, "done": incident.StepDone, "skip": incident.StepSkipped}
		if *dir == "" || len(pos) < 2 || statuses[pos[0]] == "" {
			fs.Usage()
			return fmt.Errorf("%w: step needs --incident DIR, start|done|skip and a step id", errUsage)
		}
		t, err := parseTime(*at, time.Now())
		if err != nil {
			return err
		}
		ws, err := incident.OpenCase(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer ws.Close()
		entry, err := ws.SetStep(ctx, journal.CurrentActor(journal.ViaCLI), pos[1], statuses[pos[0]], t, strings.Join(pos[2:], " "))
		if err != nil {
			return err
		}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(entry)
		}
		fmt.Fprintf(e.stdout, "journal #%d: %s %s\n", entry.Seq, entry.Type, entry.Step)
		return nil
	}
}

// cmdSteps prints the playbook with each step's status and last check.
func cmdSteps(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "JSON: phases, steps, status, last check")
	c.RunE = func(_ *cobra.Command, _ []string) error {
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: steps needs --incident DIR", errUsage)
		}
		ws, err := incident.OpenCase(*dir)
		if err != nil {
			return err
		}
		defer ws.Close()
		pb, err := ws.Playbook()
		if err != nil {
			return err
		}
		s, err := ws.State()
		if err != nil {
			return err
		}
		type stepOut struct {
			Phase  string                `json:"phase"`
			ID     string                `json:"id"`
			Title  string                `json:"title"`
			Layer  string                `json:"layer,omitempty"`
			Status string                `json:"status"`
			By     string                `json:"by,omitempty"`
			At     time.Time             `json:"at,omitzero"`
			Check  *incident.CheckResult `json:"check,omitempty"`
		}
		var out []stepOut
		for _, r := range pb.Steps() {
			st := s.Step(r.Step.ID)
			status := string(st.Status)
			if status == "" {
				status = "open"
			}
			out = append(out, stepOut{Phase: r.Phase.ID, ID: r.Step.ID, Title: r.Step.Title, Layer: string(r.Step.Layer),
				Status: status, By: st.By.Name, At: st.At, Check: st.Check})
		}
		if *asJSON {
			enc := jsonEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"playbook": pb.ID, "subject": s.Subject, "times": s.Times, "steps": out})
		}
		subject := evidence.Printable(strings.Join(s.Subject, ", "))
		if subject == "" {
			subject = "none named yet (until one is, checks and the report take the first agent of the ranking by concern; see cordon subject)"
		}
		w := e.width()
		writeWrapped(e.stdout, w, "  ", fmt.Sprintf("%s — subject: %s", pb.Title, subject))
		for name, t := range s.Times {
			fmt.Fprintf(e.stdout, "%s: %s\n", name, t.UTC().Format(time.RFC3339Nano))
		}
		phase := ""
		for _, o := range out {
			if o.Phase != phase {
				phase = o.Phase
				fmt.Fprintf(e.stdout, "\n%s\n", strings.ToUpper(phase))
			}
			writeWrapped(e.stdout, w, strings.Repeat(" ", 40), fmt.Sprintf("  %-8s %-28s %s", o.Status, o.ID, o.Title))
			if o.Check != nil {
				writeWrapped(e.stdout, w, strings.Repeat(" ", 18), "           check: "+evidence.Printable(o.Check.Summary()))
			}
		}
		return nil
	}
}

// cmdCheck runs evidence checks and journals their results.
func cmdCheck(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one JSON line per check")
	shared := allowSharedFlag(fs)
	c.RunE = func(cmd *cobra.Command, ids []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: check needs --incident DIR", errUsage)
		}
		ws, done, err := e.openOrHeld(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer done()
		results, err := ws.Check(ctx, journal.CurrentActor(journal.ViaCLI), ids...)
		layers := false
		for _, r := range results {
			layers = layers || r.Layer != nil || r.Status == incident.CheckNotRun && isLayerStep(ws, r.Step)
			if *asJSON {
				b, _ := json.Marshal(r)
				fmt.Fprintln(e.stdout, string(safeJSONLine(b)))
				continue
			}
			writeWrapped(e.stdout, e.width(), strings.Repeat(" ", 29), fmt.Sprintf("%-28s %s", r.Step, evidence.Printable(r.Summary())))
		}
		if err != nil || !layers {
			return err
		}
		// the exit status is the case's Assessment's, which the layer
		// lines above render
		a, err := ws.Assessment(ctx)
		if err != nil {
			return err
		}
		if !*asJSON {
			writeKillHints(ctx, e, e.stdout, ws, a.Kill, a.Subject, *dir, "")
		}
		return incident.Verdict(a)
	}
}

// cmdSubject names the agents the incident is about.
func cmdSubject(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "the subject, where it comes from, the playbook's values and the acquired capabilities as JSON")
	c.RunE = func(cmd *cobra.Command, agents []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: subject needs --incident DIR", errUsage)
		}
		ws, done, err := e.openOrHeld(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer done()
		if len(agents) > 0 {
			if _, err := ws.SetSubject(ctx, journal.CurrentActor(journal.ViaCLI), agents); err != nil {
				return err
			}
		}
		s, err := ws.State()
		if err != nil {
			return err
		}
		cs, err := ws.Case(ctx, s)
		if err != nil {
			return err
		}
		if *asJSON {
			acquired := []capability.Capability{}
			for _, c := range cs.Capabilities {
				if c.Origin == capability.Acquired && c.Kind != capability.DataOut {
					acquired = append(acquired, c)
				}
			}
			return jsonEncoder(e.stdout).Encode(map[string]any{"subject": cs.Subject, "from": cs.SubjectFrom, "values": cs.Vars(), "acquired": acquired,
				"assessment": cs.Assessment})
		}
		from := map[string]string{"journal": "named in the journal", "findings": "the first agent of the ranking by concern", "": "no agent yet"}[cs.SubjectFrom]
		w := e.width()
		writeWrapped(e.stdout, w, "  ", fmt.Sprintf("subject: %s (%s)", orDash(evidence.Printable(strings.Join(cs.Subject, ", "))), from))
		vars := cs.Vars()
		for _, name := range playbook.Variables() {
			if v := vars[name]; len(v) > 0 {
				writeWrapped(e.stdout, w, strings.Repeat(" ", 16), fmt.Sprintf("  %-13s %s", name, evidence.Printable(strings.Join(v, ", "))))
			}
		}
		for _, c := range cs.Capabilities {
			if c.Origin == capability.Acquired && c.Kind != capability.DataOut {
				owner := ""
				if c.Owner != "" && c.Owner != c.Agent {
					owner = " of " + c.Owner
				}
				state := ""
				if v, ok := cs.Assessment.Of(&c); ok {
					state = " [" + string(v.State) + "]"
				}
				writeWrapped(e.stdout, w, strings.Repeat(" ", 16), fmt.Sprintf("  acquired      %s %s%s: %s%s", c.Kind, evidence.Printable(c.Value), evidence.Printable(owner), evidence.Printable(c.How), state))
			}
		}
		// the case's one verdict, as check and the report say it
		writeWrapped(e.stdout, w, "  ", "verdict: "+evidence.Printable(incident.Headline(cs.Assessment)))
		return nil
	}
}

// cmdAction shows an action's exact commands, asks for the agent id typed
// back, runs them and journals what happened.
func cmdAction(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	dry := fs.Bool("dry-run", false, "show and journal what would run; run nothing")
	confirm := fs.String("confirm", "", "the subject `AGENT`, typed ahead for scripts (default: asked on stdin)")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "the plan and what ran as JSON (the plan is then shown on stderr)")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if *dir == "" || len(pos) != 2 {
			fs.Usage()
			return fmt.Errorf("%w: action needs --incident DIR, a step id and an action name", errUsage)
		}
		ws, err := incident.Open(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer ws.Close()
		// before the plan is shown and confirmed: it could not be journaled
		if err := ws.Writable(); err != nil {
			return err
		}
		plan, err := ws.PlanAction(ctx, pos[0], pos[1])
		if err != nil {
			return err
		}
		// with --json the plan is for the person confirming, not the output
		show := e.stdout
		if *asJSON {
			show = e.stderr
		}
		fmt.Fprintf(show, "%s — %d command(s), timeout %s each:\n", evidence.Printable(plan.Title), len(plan.Commands), plan.Timeout)
		for _, argv := range plan.Commands {
			fmt.Fprintf(show, "  $ %s\n", evidence.Printable(incident.CommandLine(argv)))
		}
		if len(plan.Values) > 0 {
			fmt.Fprintln(show, "Values, and where they come from:")
			for _, v := range plan.Values {
				fmt.Fprintf(show, "  {{%s}} %s: %s\n", v.Var, evidence.Printable(v.Value), evidence.Printable(v.From))
			}
		}
		if *confirm == "" {
			fmt.Fprintf(show, "Type %s to run: ", evidence.Printable(plan.Confirm))
			line, _ := bufio.NewReader(e.stdin).ReadString('\n')
			*confirm = strings.TrimSpace(line)
		}
		runs, err := ws.RunAction(ctx, journal.CurrentActor(journal.ViaCLI), pos[0], plan, *confirm, *dry)
		if *asJSON {
			if jerr := jsonEncoder(e.stdout).Encode(map[string]any{"plan": plan, "runs": runs}); jerr != nil && err == nil {
				err = jerr
			}
			return err
		}
		for _, r := range runs {
			switch {
			case r.DryRun:
				fmt.Fprintf(e.stdout, "dry run, not run: %s\n", evidence.Printable(incident.CommandLine(r.Argv)))
			default:
				fmt.Fprintf(e.stdout, "exit %d in %s: %s\n%s", r.ExitCode, r.Took, evidence.Printable(incident.CommandLine(r.Argv)), r.Output)
			}
		}
		return err
	}
}

// isLayerStep says a step closes a kill-switch layer.
func isLayerStep(ws *incident.Workspace, id string) bool {
	pb, err := ws.Playbook()
	if err != nil {
		return false
	}
	ref, ok := pb.Step(id)
	return ok && ref.Step.Layer != ""
}
