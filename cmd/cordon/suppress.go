package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/spf13/cobra"
)

const suppressArgs = "--incident DIR --detector D [--agent A] [--value V] [--query Q] REASON... | list --incident DIR [--json]"

// cmdSuppress records a suppression in the journal; its list subcommand
// shows those on the record with the findings each covers. A suppression
// never removes a finding nor changes a check: docs/rules.md.
func cmdSuppress(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	det := fs.String("detector", "", "suppress the findings of detector `D`")
	agent := fs.String("agent", "", "only those about agent `A`")
	value := fs.String("value", "", "only those driven by value `V` alone (a host, a credential, a path)")
	query := fs.String("query", "", "only those every event of which matches `Q` (docs/query.md)")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "the suppression journaled, and how many findings it covers, as JSON")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		reason := strings.TrimSpace(strings.Join(pos, " "))
		if *dir == "" || *det == "" || reason == "" {
			fs.Usage()
			return fmt.Errorf("%w: suppress needs --incident DIR, --detector D and a REASON", errUsage)
		}
		ws, err := incident.Open(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer ws.Close()
		s, err := ws.Suppress(ctx, journal.CurrentActor(journal.ViaCLI), detect.Scope{Detector: *det, Agent: *agent, Value: *value, Query: *query}, reason)
		if errors.Is(err, incident.ErrSuppression) {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		if err != nil {
			return err
		}
		found, err := ws.CachedFindings(ctx)
		if err != nil {
			return err
		}
		by, err := ws.SuppressedBy(ctx, found, []incident.Suppression{s})
		if err != nil {
			return err
		}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(suppressionLine{s, len(by)})
		}
		fmt.Fprintf(e.stdout, "suppression %s journaled: it covers %d finding(s) now; none is removed\n", s.ID, len(by))
		return nil
	}
}

// suppressionLine is one suppression as cordon suppress list --json
// prints it: the record and how many findings it covers now.
type suppressionLine struct {
	incident.Suppression
	Covers int `json:"covers"`
}

func cmdSuppressList(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one suppression per line as JSON")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		return suppressList(cmd.Context(), e, *dir, *asJSON)
	}
}

func suppressList(ctx context.Context, e *env, dir string, asJSON bool) error {
	if dir == "" {
		return fmt.Errorf("%w: suppress list needs --incident DIR", errUsage)
	}
	ws, done, err := e.openIncident(dir)
	if err != nil {
		return err
	}
	defer done()
	sups, err := ws.Suppressions(ctx)
	if err != nil {
		return err
	}
	found, err := ws.CachedFindings(ctx)
	if err != nil {
		return err
	}
	by, err := ws.SuppressedBy(ctx, found, sups)
	if err != nil {
		return err
	}
	covers := map[string]int{}
	for _, ids := range by {
		for _, id := range ids {
			covers[id]++
		}
	}
	enc := jsonEncoder(e.stdout)
	for _, s := range sups {
		if asJSON {
			if err := enc.Encode(suppressionLine{s, covers[s.ID]}); err != nil {
				return err
			}
			continue
		}
		writeWrapped(e.stdout, e.width(), "      ", fmt.Sprintf("%-5s %s by %s  %s  covers %d: %s", s.ID, s.At.Format("2006-01-02 15:04:05Z"),
			evidence.Printable(s.By.Name), evidence.Printable(s.Scope.String()), covers[s.ID], evidence.Printable(s.Reason)))
	}
	if !asJSON {
		fmt.Fprintf(e.stderr, "%d suppression(s); %d finding(s) covered of %d\n", len(sups), len(by), len(found))
	}
	return nil
}
