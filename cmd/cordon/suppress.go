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
)

const suppressArgs = "--incident DIR --detector D [--agent A] [--value V] [--query Q] REASON... | list --incident DIR [--json]"

// cmdSuppress records a suppression in the journal, or lists those on the
// record with the findings each covers. A suppression never removes a
// finding nor changes a check: docs/rules.md.
func cmdSuppress(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "list" {
		return suppressList(ctx, e, args[1:])
	}
	fs := newFlags(e, "suppress", suppressArgs)
	dir := fs.String("incident", "", "incident workspace `DIR`")
	det := fs.String("detector", "", "suppress the findings of detector `D`")
	agent := fs.String("agent", "", "only those about agent `A`")
	value := fs.String("value", "", "only those driven by value `V` alone (a host, a credential, a path)")
	query := fs.String("query", "", "only those every event of which matches `Q` (docs/query.md)")
	shared := allowSharedFlag(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
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
	fs2, err := ws.CachedFindings(ctx)
	if err != nil {
		return err
	}
	by, err := ws.SuppressedBy(ctx, fs2, []incident.Suppression{s})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "suppression %s journaled: it covers %d finding(s) now; none is removed\n", s.ID, len(by))
	return nil
}

// suppressionLine is one suppression as cordon suppress list --json
// prints it: the record and how many findings it covers now.
type suppressionLine struct {
	incident.Suppression
	Covers int `json:"covers"`
}

func suppressList(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "suppress list", "list --incident DIR [--json]")
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one suppression per line as JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return fmt.Errorf("%w: suppress list needs --incident DIR", errUsage)
	}
	ws, done, err := e.openIncident(*dir)
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
		if *asJSON {
			if err := enc.Encode(suppressionLine{s, covers[s.ID]}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.stdout, "%-5s %s by %s  %s  covers %d: %s\n", s.ID, s.At.Format("2006-01-02 15:04:05Z"),
			evidence.Printable(s.By.Name), evidence.Printable(s.Scope.String()), covers[s.ID], evidence.Printable(s.Reason))
	}
	if !*asJSON {
		fmt.Fprintf(e.stderr, "%d suppression(s); %d finding(s) covered of %d\n", len(sups), len(by), len(found))
	}
	return nil
}
