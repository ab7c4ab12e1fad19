package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
	"github.com/spf13/cobra"
)

const playbookArgs = "lint FILE|DIR ... | show [--yaml] [FILE]"

// cmdPlaybook answers `cordon playbook` without lint or show; those are
// its subcommands.
func cmdPlaybook(e *env, c *cobra.Command) {
	c.RunE = func(_ *cobra.Command, args []string) error {
		fmt.Fprintf(e.stderr, "usage: cordon playbook %s\n", playbookArgs)
		if len(args) == 0 {
			return fmt.Errorf("%w: playbook needs lint or show", errUsage)
		}
		return fmt.Errorf("%w: unknown playbook command %q (want lint or show)", errUsage, args[0])
	}
}

// playbookLint prints every problem of every file as file:line:col:
// message, the form editors and CI annotate, and fails when there is one.
func cmdPlaybookLint(e *env, c *cobra.Command) {
	fs := c.Flags()
	asJSON := jsonFlag(fs, "the problems as JSON (file, line, col, message)")
	c.RunE = func(_ *cobra.Command, files []string) error {
		if len(files) == 0 {
			fs.Usage()
			return fmt.Errorf("%w: playbook lint needs a file", errUsage)
		}
		var probs []playbook.Problem
		var unreadable []string
		for _, f := range files {
			if st, err := os.Stat(f); err == nil && st.IsDir() {
				pbs, err := playbook.LoadDir(f)
				var ps playbook.Problems
				switch {
				case errors.As(err, &ps):
					probs = append(probs, ps...)
				case err != nil:
					unreadable = append(unreadable, fmt.Sprintf("%s: %v", f, err))
				case len(pbs) == 0:
					unreadable = append(unreadable, f+": no .yaml or .yml file")
				}
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				unreadable = append(unreadable, fmt.Sprintf("%s: cannot read: %v", f, err))
				continue
			}
			_, ps := playbook.Parse(f, data)
			probs = append(probs, ps...)
		}
		if *asJSON {
			out := []map[string]any{}
			for _, u := range unreadable {
				out = append(out, map[string]any{"message": u})
			}
			for _, p := range probs {
				out = append(out, map[string]any{"file": p.File, "line": p.Line, "col": p.Col, "message": p.Msg})
			}
			if err := jsonEncoder(e.stdout).Encode(map[string]any{"problems": out}); err != nil {
				return err
			}
			if n := len(out); n > 0 {
				return fmt.Errorf("%w: %d %s", errUsage, n, countNoun(n, "problem", "problems"))
			}
			return nil
		}
		for _, u := range unreadable {
			fmt.Fprintln(e.stdout, evidence.Printable(u))
		}
		for _, p := range probs {
			fmt.Fprintln(e.stdout, evidence.Printable(p.Error()))
		}
		if n := len(probs) + len(unreadable); n > 0 {
			return fmt.Errorf("%w: %d %s", errUsage, n, countNoun(n, "problem", "problems"))
		}
		fmt.Fprintln(e.stdout, "ok")
		return nil
	}
}

// playbookShow prints the phases and steps of the built-in playbook or of
// a file: what a responder will walk through, and what each kill-switch
// layer checks.
func cmdPlaybookShow(e *env, c *cobra.Command) {
	fs := c.Flags()
	asYAML := fs.Bool("yaml", false, "print the playbook's YAML source (the built-in one, to copy and adapt)")
	asJSON := jsonFlag(fs, "the phases and steps as JSON")
	c.RunE = func(_ *cobra.Command, files []string) error {
		var err error
		if len(files) > 1 {
			fs.Usage()
			return fmt.Errorf("%w: playbook show takes one file", errUsage)
		}
		if len(files) == 0 && *asYAML {
			_, err := e.stdout.Write(playbook.BuiltinYAML())
			return err
		}
		pb := playbook.Builtin()
		if len(files) == 1 {
			if *asYAML {
				data, err := os.ReadFile(files[0])
				if err != nil {
					return fmt.Errorf("%w: %v", errUsage, err)
				}
				_, err = e.stdout.Write(data)
				return err
			}
			if pb, err = playbook.Load(files[0]); err != nil {
				var ps playbook.Problems
				if errors.As(err, &ps) {
					for _, p := range ps {
						fmt.Fprintln(e.stdout, evidence.Printable(p.Error()))
					}
					return fmt.Errorf("%w: %s has %d %s; see cordon playbook lint", errUsage, files[0], len(ps), countNoun(len(ps), "problem", "problems"))
				}
				return fmt.Errorf("%w: %v", errUsage, err)
			}
		}
		if *asJSON {
			return writePlaybookJSON(e.stdout, pb)
		}
		w := e.stdout
		p := evidence.Printable
		fmt.Fprintf(w, "%s — %s\n", p(pb.ID), p(pb.Title))
		if vars := pb.Variables(); len(vars) > 0 {
			fmt.Fprintf(w, "variables: %s\n", strings.Join(vars, ", "))
		}
		width := 0
		for _, r := range pb.Steps() {
			width = max(width, len(r.Step.ID))
		}
		for i, ph := range pb.Phases {
			fmt.Fprintf(w, "\n%d. %s (%s)\n", i+1, p(ph.Title), p(ph.ID))
			for _, st := range ph.Steps {
				fmt.Fprintf(w, "   %-*s  %s\n", width, p(st.ID), p(st.Title))
				var notes []string
				if st.Layer != "" {
					notes = append(notes, "layer "+string(st.Layer))
				}
				if st.Sets != "" {
					notes = append(notes, "sets "+st.Sets)
				}
				if n := len(st.Checklist); n > 0 {
					notes = append(notes, fmt.Sprintf("%d %s", n, countNoun(n, "checklist item", "checklist items")))
				}
				if n := len(st.Queries); n > 0 {
					notes = append(notes, fmt.Sprintf("%d %s", n, countNoun(n, "query", "queries")))
				}
				if len(st.Actions) > 0 {
					notes = append(notes, "actions "+strings.Join(st.Actions, ", "))
				}
				if len(notes) > 0 {
					fmt.Fprintf(w, "   %-*s  %s\n", width, "", p(strings.Join(notes, "; ")))
				}
				if c := st.Check; c != nil {
					when := "in the whole incident"
					if c.After != "" {
						when = "after " + c.After
					}
					fmt.Fprintf(w, "   %-*s  check: %s (expect %s %s)\n", width, "", p(c.Title), c.Expect, when)
				}
			}
		}
		return nil
	}
}

func countNoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writePlaybookJSON writes what playbook show prints, as one JSON object.
func writePlaybookJSON(w io.Writer, pb *playbook.Playbook) error {
	type step struct {
		ID        string `json:"id"`
		Title     string `json:"title"`
		Layer     string `json:"layer,omitempty"`
		Sets      string `json:"sets,omitempty"`
		Checklist int    `json:"checklist_items"`
	}
	type phase struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Steps []step `json:"steps"`
	}
	doc := struct {
		ID        string   `json:"id"`
		Title     string   `json:"title"`
		Variables []string `json:"variables"`
		Phases    []phase  `json:"phases"`
	}{ID: pb.ID, Title: pb.Title, Variables: pb.Variables()}
	for _, ph := range pb.Phases {
		out := phase{ID: string(ph.ID), Title: ph.Title, Steps: []step{}}
		for _, st := range ph.Steps {
			out.Steps = append(out.Steps, step{ID: st.ID, Title: st.Title, Layer: string(st.Layer), Sets: st.Sets, Checklist: len(st.Checklist)})
		}
		doc.Phases = append(doc.Phases, out)
	}
	return jsonEncoder(w).Encode(doc)
}
