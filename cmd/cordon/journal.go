package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/spf13/cobra"
)

const (
	journalArgs = "[verify [--anchor FILE] [--allowed-signers FILE] | sign --key KEY | anchor --to FILE [--key KEY]] --incident DIR [--json] [--type T[,T...]]"
	noteArgs    = "--incident DIR [--event ID] [--step ID] TEXT...|-"
)

// maxNote bounds a note read from stdin.
const maxNote = 1 << 20

// cmdJournal lists the case journal, or verifies its hash chain. Neither
// opens the index, so both work while an ingest holds the workspace.
func cmdJournal(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "entries as JSON lines, as stored (verify: the verification as JSON)")
	types := fs.String("type", "", "only entries of these `TYPES` (comma-separated: note,step_done,...)")
	anchor := fs.String("anchor", "", "verify: the anchor `FILE` this workspace's heads were written to (refuses a journal cut short, emptied or rewritten since)")
	allowed := fs.String("allowed-signers", "", "verify: only signatures by the keys in this allowed_signers `FILE` count, and one is required")
	key := fs.String("key", "", "sign, anchor: the SSH private key `FILE` to sign with (kept outside the workspace; a passphrase-protected key through ssh-agent)")
	to := fs.String("to", "", "anchor: append the head to this `FILE`, outside the workspace")
	shared := allowSharedFlag(fs)
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: journal needs --incident DIR", errUsage)
		}
		sub := ""
		if len(pos) > 0 {
			sub = pos[0]
		}
		if len(pos) > 1 || sub != "" && sub != "verify" && sub != "sign" && sub != "anchor" {
			fs.Usage()
			return fmt.Errorf("%w: journal: unexpected %q (subcommands: verify, sign, anchor)", errUsage, strings.Join(pos, " "))
		}
		j, err := journal.Open(*dir)
		if err != nil {
			return err
		}
		switch sub {
		case "verify":
			return verifyJournal(e, j, *asJSON, *anchor, *allowed)
		case "sign":
			if *key == "" {
				return fmt.Errorf("%w: journal sign needs --key KEY", errUsage)
			}
			s, err := journal.LoadSigner(*key, *dir)
			if err != nil {
				return err
			}
			if shared() {
				j.AllowShared()
			}
			en, err := j.Sign(ctx, journal.CurrentActor(journal.ViaCLI), s)
			if err != nil {
				return err
			}
			if *asJSON {
				return jsonEncoder(e.stdout).Encode(en)
			}
			fmt.Fprintf(e.stdout, "journal #%d: %s\n", en.Seq, evidence.Printable(en.Text))
			return nil
		case "anchor":
			return anchorJournal(e, j, *dir, *to, *key, *asJSON)
		}
		entries, torn, err := j.Read()
		if err != nil {
			return err
		}
		keep := map[string]bool{}
		for _, t := range strings.Split(*types, ",") {
			if t = strings.TrimSpace(t); t != "" {
				keep[t] = true
			}
		}
		shown := 0
		for _, en := range entries {
			if len(keep) > 0 && !keep[string(en.Type)] {
				continue
			}
			shown++
			if *asJSON {
				e.stdout.Write(append(safeJSONLine(en.Line()), '\n'))
				continue
			}
			writeEntry(e.stdout, e.width(), en)
		}
		if torn != nil {
			fmt.Fprintf(e.stderr, "journal: %s; the next entry sets it aside in journal.torn\n", torn)
		}
		if !*asJSON && shown == 0 {
			fmt.Fprintln(e.stderr, "no journal entries")
		}
		return nil
	}
}

// anchorJournal appends the journal's head to a file outside the workspace.
func anchorJournal(e *env, j *journal.Journal, dir, to, key string, asJSON bool) error {
	if to == "" {
		return fmt.Errorf("%w: journal anchor needs --to FILE (outside the workspace)", errUsage)
	}
	var s *journal.Signer
	if key != "" {
		var err error
		if s, err = journal.LoadSigner(key, dir); err != nil {
			return err
		}
	}
	a, err := j.AnchorTo(to, journal.CurrentActor(journal.ViaCLI), s)
	if err != nil {
		return err
	}
	if asJSON {
		return jsonEncoder(e.stdout).Encode(a)
	}
	signed := "unsigned"
	if s != nil {
		signed = "signed by " + s.Fingerprint()
	}
	fmt.Fprintf(e.stdout, "anchored entry %d (head %s) in %s, %s\n", a.Seq, shortHash(a.Hash), evidence.Printable(to), signed)
	return nil
}

func verifyJournal(e *env, j *journal.Journal, asJSON bool, anchorFile, allowedFile string) error {
	var o journal.VerifyOptions
	var err error
	if anchorFile != "" {
		if o.Anchors, err = journal.ReadAnchors(anchorFile); err != nil {
			return err
		}
	}
	if allowedFile != "" {
		if o.Allowed, err = journal.ReadAllowedSigners(allowedFile); err != nil {
			return err
		}
		if o.Allowed == nil {
			o.Allowed = []journal.AllowedSigner{}
		}
	}
	v, p, err := j.VerifyWith(o)
	if err != nil {
		return err
	}
	if asJSON {
		out := struct {
			journal.Verification
			Proof journal.Proof `json:"proof"`
		}{v, p}
		if err := jsonEncoder(e.stdout).Encode(out); err != nil {
			return err
		}
		return v.Err()
	}
	if v.OK() {
		fmt.Fprintf(e.stdout, "journal ok: %d entries, head %s\n", v.Entries, shortHash(v.Hash))
		writeProof(e, v, p, anchorFile != "", allowedFile != "")
		return nil
	}
	writeWrapped(e.stdout, e.width(), "  ", "journal broken: "+evidence.Printable(v.Problem.String()))
	if v.Entries > 0 {
		writeWrapped(e.stdout, e.width(), "  ", fmt.Sprintf("the first %d entries verify (up to entry %d, hash %s)", v.Entries, v.Seq, shortHash(v.Hash)))
	}
	return v.Err()
}

// writeProof says what the verification proved beyond the chain, and
// what it did not.
func writeProof(e *env, v journal.Verification, p journal.Proof, anchored, allowed bool) {
	w := e.width()
	switch {
	case p.Anchored != nil:
		writeWrapped(e.stdout, w, "  ", fmt.Sprintf("anchored: entry %d as of %s matches (%d anchors); %d entries since",
			p.Anchored.Seq, p.Anchored.Time.UTC().Format(time.RFC3339), p.Anchors, v.Seq-p.Anchored.Seq))
	case !anchored:
		writeWrapped(e.stdout, w, "  ", "unanchored: entries cut from the end together with journal.head, or a chain rewritten and re-hashed, cannot be ruled out (see cordon journal anchor)")
	}
	if p.Signed > 0 {
		by := evidence.Printable(strings.Join(p.SignedBy, ", "))
		if !allowed {
			by += " (keys not checked against an allowed_signers file: pass --allowed-signers to know who)"
		}
		writeWrapped(e.stdout, w, "  ", fmt.Sprintf("signed: %d signature(s) up to entry %d, by %s", p.Signed, p.SignedTo, by))
	}
}

// cmdNote journals a note. It does not open the index.
func cmdNote(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	event := fs.String("event", "", "the note is about event `ID`")
	step := fs.String("step", "", "the note is about playbook step `ID`")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "the journal entry as JSON")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: note needs --incident DIR", errUsage)
		}
		text := strings.Join(pos, " ")
		if text == "-" {
			b, err := io.ReadAll(io.LimitReader(e.stdin, maxNote+1))
			if err != nil {
				return fmt.Errorf("read note: %w", err)
			}
			if len(b) > maxNote {
				return fmt.Errorf("%w: a note is at most %d bytes", errUsage, maxNote)
			}
			text = strings.TrimRight(string(b), "\n")
		}
		if strings.TrimSpace(text) == "" {
			fs.Usage()
			return fmt.Errorf("%w: note needs TEXT (or - to read it from stdin)", errUsage)
		}
		if !incident.IsWorkspace(*dir) {
			return fmt.Errorf("%w: %s is not an incident workspace (create one with cordon ingest --incident %s FILE...)", incident.ErrNoIncident, *dir, *dir)
		}
		ws, err := incident.OpenCase(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer ws.Close()
		en, err := ws.Note(ctx, journal.CurrentActor(journal.ViaCLI), *step, *event, text)
		if err != nil {
			return err
		}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(en)
		}
		fmt.Fprintf(e.stdout, "journal entry %d\n", en.Seq)
		return nil
	}
}

// writeEntry prints one entry on a line: seq, time, actor, type, what it
// concerns, then its text or a short form of its payload. Every field can
// carry hostile text (a note quoting a log line), so all of it is made
// printable. On a terminal of width columns the text wraps under the
// entry, indented: a journal is read, and nothing of it is cut.
func writeEntry(w io.Writer, width int, en journal.Entry) {
	p := evidence.Printable
	actor := p(en.Actor.Name) + " (" + p(en.Actor.Via) + ")"
	var about string
	if en.Step != "" {
		about += "  step " + p(en.Step)
	}
	if en.Event != "" {
		about += "  event " + p(en.Event)
	}
	text := p(en.Text)
	if text == "" && len(en.Payload) > 0 {
		text = p(clipPayload(string(en.Payload), 120))
	}
	writeWrapped(w, width, "      ", fmt.Sprintf("%4d  %s  %s  %s%s  %s", en.Seq, en.Time.UTC().Format("2006-01-02T15:04:05Z"), actor, p(string(en.Type)), about, text))
}

// clipPayload shortens s to n runes.
func clipPayload(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func shortHash(hash string) string {
	if hash == "" {
		return "none"
	}
	return hash[:min(12, len(hash))]
}

// safeJSONLine returns a JSON line fit for a terminal:
// evidence.PrintableJSON.
func safeJSONLine(line []byte) []byte { return evidence.PrintableJSON(line) }

// jsonEncoder writes JSON to w through evidence.PrintableJSON: every
// --json output carries evidence, and a pipe into a terminal must not run
// its escapes.
func jsonEncoder(w io.Writer) *json.Encoder { return json.NewEncoder(evidence.PrintableJSONWriter(w)) }
