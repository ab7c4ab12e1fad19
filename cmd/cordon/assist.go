package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/spf13/cobra"
)

const assistArgs = "--incident DIR [--query Q] [--id ID,...] [--since T] [--until T] [--offline] [--json] TASK [QUESTION...] | --incident DIR --check"

// cmdAssist runs a defender-mode assistant task for scripts: the answer's
// claims with their cited event ids, whether those are real events, and
// whether they hold the entities each claim names.
func cmdAssist(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	query := fs.String("query", "", "the evidence: events matching `QUERY` (default: the whole incident and its findings)")
	ids := fs.String("id", "", "the evidence: these event `IDS` (comma-separated)")
	since := fs.String("since", "", "only events from `TIME` (RFC 3339 or a duration back from the main span's last event)")
	until := fs.String("until", "", "only events before `TIME`")
	offline := fs.Bool("offline", false, "answer from rules, without a model (summarize and timeline)")
	asJSON := fs.Bool("json", false, "the whole exchange as JSON")
	check := fs.Bool("check", false, "probe the endpoint again and say what it found (models, context size, tokenizer, budget); sends no evidence")
	shared := allowSharedFlag(fs)
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if *check && *dir != "" {
			return assistCheck(ctx, e, *dir, shared(), *asJSON)
		}
		if *dir == "" || len(pos) == 0 {
			fs.Usage()
			return fmt.Errorf("%w: assist needs --incident DIR and a task (%s)", errUsage, taskNames())
		}
		task := assist.Task(pos[0])
		if !task.Valid() {
			return fmt.Errorf("%w: unknown task %q: want one of %s", errUsage, pos[0], taskNames())
		}
		ws, err := incident.Open(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer ws.Close()
		c, err := ws.Config()
		if err != nil {
			return err
		}
		cfg, err := c.AssistantConfig(os.Getenv)
		if *offline {
			cfg.Offline, err = true, nil
		}
		if err != nil {
			return err
		}
		// "30m" counts back from the main span's end, as search does
		sp, err := ws.MainSpan(ctx)
		if err != nil {
			return err
		}
		last := sp.Last
		q, err := readQuery(e, *query, ws.Counts())
		if err != nil {
			return err
		}
		sel := assist.Selection{Query: q, All: q.IsAll() && *query != ""}
		if sel.Since, err = parseTime(*since, last); err != nil {
			return err
		}
		if sel.Until, err = parseTime(*until, last); err != nil {
			return err
		}
		if *ids != "" {
			sel.IDs = strings.Split(*ids, ",")
		}
		req := incident.AskRequest{Task: task, Question: strings.Join(pos[1:], " "), Selection: sel}
		if !*asJSON {
			fmt.Fprintf(e.stderr, "cordon: %s via %s\n", task, endpointName(cfg))
		}
		res, err := ws.Ask(ctx, journal.CurrentActor(journal.ViaCLI), cfg, req)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := jsonEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		if res.Suggestion != nil {
			writeSuggestion(e, *dir, res)
			return nil
		}
		writeAnswer(e, res)
		return nil
	}
}

// writeSuggestion prints the query task's query with its hit count: a
// preview, not a search; the responder runs it by choice.
func writeSuggestion(e *env, dir string, res assist.Result) {
	s := *res.Suggestion
	if !s.Runnable() {
		fmt.Fprintf(e.stdout, "no query to run: %s\n", evidence.Printable(s.Err))
		if s.Query != "" {
			fmt.Fprintf(e.stdout, "  the model wrote: %s\n", evidence.Printable(s.Query))
		}
	} else {
		fmt.Fprintf(e.stdout, "suggested query (not run): %s\n  %d hits · run it: cordon search --incident %s %s\n",
			evidence.Printable(s.Query), s.Hits, shellQuote(dir), shellQuote(evidence.Printable(s.Query)))
	}
	for _, cl := range res.Answer.Claims {
		fmt.Fprintf(e.stdout, "  why: %s\n    %s: %s\n", evidence.Printable(cl.Text), evidence.Printable(cl.Verdict()), evidence.Printable(strings.Join(cl.EventIDs, " ")))
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func taskNames() string {
	var names []string
	for _, t := range assist.Tasks() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

func endpointName(cfg assist.Config) string {
	if cfg.Offline {
		return "offline rules (no endpoint configured)"
	}
	return cfg.Model + " at " + cfg.Host()
}

// writeAnswer prints the claims: whether a claim cites real events, and
// whether they hold what it names, are words, not a colour.
func writeAnswer(e *env, res assist.Result) {
	label := "answer"
	if res.Offline {
		label = "offline answer"
	}
	account := res.Account
	if account == "" {
		account = fmt.Sprintf("sent %d of %d events", res.Sent, res.Total)
	}
	if res.ContextTokens > 0 {
		account += fmt.Sprintf(", ≈%d of %d tokens", res.PromptTokens, res.ContextTokens)
	}
	fmt.Fprintf(e.stdout, "%s (%s) — %s, %d secrets redacted, %s\n\n",
		label, res.Task, account, res.Redactions, res.Duration.Round(time.Millisecond))
	for i, cl := range res.Answer.Claims {
		mark := cl.Verdict()
		phase := ""
		if cl.Phase != "" {
			phase = "[" + cl.Phase + "] "
		}
		fmt.Fprintf(e.stdout, "%2d. %s%s\n    %s: %s\n", i+1, phase, evidence.Printable(cl.Text), evidence.Printable(mark), evidence.Printable(strings.Join(cl.EventIDs, " ")))
	}
	if res.Answer.Notes != "" {
		fmt.Fprintf(e.stdout, "\nnotes: %s\n", evidence.Printable(res.Answer.Notes))
	}
	if res.Answer.Truncated {
		fmt.Fprintf(e.stdout, "\n%s\n", res.Answer.TruncatedLine())
	}
	if n := len(res.Injections); n > 0 {
		fmt.Fprintf(e.stdout, "\n%d evidence lines read like instructions to an AI (treated as data):\n", n)
		for _, f := range res.Injections {
			fmt.Fprintf(e.stdout, "  %s  %s\n", evidence.Printable(f.EventID), f.Excerpt) // the excerpt is packet text, already printable
		}
	}
}
