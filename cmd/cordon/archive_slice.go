package main

import (
	"fmt"
	"io"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest/relay"
	"github.com/spf13/cobra"
)

// cmdArchiveSlice makes a case of some agents' evidence out of the
// archive: what cordon pull would take from the stream, when the stream
// no longer holds it (docs/scale.md).
func cmdArchiveSlice(e *env, c *cobra.Command) {
	fs := c.Flags()
	agents := fs.String("agent", "", "the agents whose evidence is taken, `A[,B]`, as attribution names them")
	since := fs.String("since", "", "events at or after `T` (RFC 3339)")
	until := fs.String("until", "", "events at or before `T` (RFC 3339; default: all)")
	dir := fs.String("incident", "", "the new case's workspace `DIR` (created if missing)")
	store := fs.String("store", "", "keep the case's events in `victorialogs://host:port[,host:port]` instead of the index in the folder")
	detectAfter := fs.Bool("detect", true, "run the detectors once the evidence is in and keep their result with the case")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "the slice's result, then the received file's, as JSON lines")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if len(pos) != 1 || *agents == "" || *since == "" || *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: archive slice needs the archive's folder, --agent, --since and --incident", errUsage)
		}
		if err := incident.CheckStore(*store); err != nil {
			return fmt.Errorf("%w: --store: %v", errUsage, err)
		}
		cfg, err := pullScope(*agents, *since, *until)
		if err != nil {
			return err
		}
		archive := pos[0]
		ws, err := incident.Create(*dir, incident.AllowShared(shared()), incident.Store(*store))
		if err != nil {
			return err
		}
		defer ws.Close()
		var pr fleet.PullResult
		name := "slice-" + time.Now().UTC().Format("20060102T150405.000000000Z") + ".jsonl"
		results, err := ws.Receive(ctx, name, func(w io.Writer) (string, error) {
			// the archive's events are held in memory while they are
			// attributed, as a pull holds the stream's
			var events []evidence.Event
			if err := incident.EachArchived(ctx, archive, func(ev evidence.Event) error {
				events = append(events, ev)
				return nil
			}); err != nil {
				return "", err
			}
			var perr error
			pr, perr = fleet.PullFrom(events, cfg, w)
			return pr.FromArchive(archive, cfg), perr
		}, incident.IngestOptions{Format: relay.Format})
		if err != nil {
			return fmt.Errorf("archive slice: %w", err)
		}
		from := "archive " + evidence.Printable(archive)
		return received(ctx, e, ws, pr, cfg, from, "slice's", results, *detectAfter, *asJSON)
	}
}
