package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/cordon-ir/cordon/bundle"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/spf13/cobra"
)

const bundleArgs = "--incident DIR -o FILE.tar.gz [--with-evidence] [--sign KEY] [--no-redact] | verify FILE.tar.gz [--allowed-signers FILE] [--json]"

// cmdBundle writes or verifies a case bundle.
func cmdBundle(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	out := fs.StringP("o", "o", "", "write the bundle to `FILE` (.tar.gz)")
	withEvidence := fs.Bool("with-evidence", false, "carry the evidence files too (and with them every secret the agent read)")
	key := fs.String("sign", "", "sign the manifest with this SSH private key `FILE` (outside the workspace), as ssh-keygen -Y sign does")
	noRedact := noRedactFlag(fs)
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "what was written (path, sha256, files, journal head) as JSON")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		var err error
		if *dir == "" || *out == "" || len(pos) > 0 {
			fs.Usage()
			return fmt.Errorf("%w: bundle --incident DIR -o FILE.tar.gz", errUsage)
		}
		var signer *journal.Signer
		if *key != "" {
			if signer, err = journal.LoadSigner(*key, *dir); err != nil {
				return err
			}
		}
		ws, err := incident.Open(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer ws.Close()
		actor := journal.CurrentActor(journal.ViaCLI)
		if _, err := redactionOptions(ctx, ws, *noRedact, "the bundle "+*out); err != nil {
			return err
		}
		var m bundle.Manifest
		if err := writeOut(e, *out, func(w io.Writer) error {
			m, err = bundle.Write(ctx, ws, w, bundle.Options{WithEvidence: *withEvidence, Unredacted: *noRedact, Signer: signer, Actor: actor,
				Cordon: cordonVersion(), Command: e.argv})
			return err
		}); err != nil {
			return err
		}
		sum, err := fileDigest(*out)
		if err != nil {
			return err
		}
		signed := "unsigned"
		if signer != nil {
			signed = "signed by " + signer.Fingerprint()
		}
		text := fmt.Sprintf("%s: %d files, journal to entry %d, sha256 %s, %s", *out, len(m.Files), m.Journal.Seq, sum, signed)
		fields := map[string]any{"path": *out, "sha256": sum, "files": len(m.Files), "journal_seq": m.Journal.Seq,
			"journal_hash": m.Journal.Hash, "with_evidence": m.WithEvidence}
		if signer != nil {
			fields["signed_by"] = signer.Fingerprint()
		}
		if _, err := ws.RecordBundle(ctx, actor, text, fields); err != nil {
			return fmt.Errorf("the bundle is written but not journaled: %w", err)
		}
		if *asJSON {
			if err := jsonEncoder(e.stdout).Encode(fields); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(e.stdout, "bundle %s\n", evidence.Printable(text))
		}
		if *withEvidence {
			fmt.Fprintln(e.stderr, "cordon: the bundle carries the evidence files as received: whatever the agent read is in them (credentials, tokens, keys); keep it as you keep those secrets")
		}
		return nil
	}
}

func cmdBundleVerify(e *env, c *cobra.Command) {
	fs := c.Flags()
	allowedFile := fs.String("allowed-signers", "", "the manifest must be signed by a key in this allowed_signers `FILE`")
	asJSON := fs.Bool("json", false, "the verification as JSON")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		var err error
		if len(pos) != 1 {
			fs.Usage()
			return fmt.Errorf("%w: bundle verify FILE.tar.gz", errUsage)
		}
		var allowed []journal.AllowedSigner
		if *allowedFile != "" {
			if allowed, err = journal.ReadAllowedSigners(*allowedFile); err != nil {
				return err
			}
			if allowed == nil {
				allowed = []journal.AllowedSigner{}
			}
		}
		v, verr := bundle.Verify(pos[0], allowed)
		if *asJSON {
			if err := jsonEncoder(e.stdout).Encode(v); err != nil {
				return err
			}
			return verr
		}
		for _, p := range v.Problems {
			fmt.Fprintf(e.stdout, "problem: %s\n", evidence.Printable(p))
		}
		if verr != nil {
			return verr
		}
		signed := "unsigned: the digests and the journal hold, but anyone could have made the bundle"
		if v.Signed {
			signed = "signed by " + evidence.Printable(v.SignedBy)
			if allowed == nil {
				signed += " (not checked against an allowed_signers file)"
			}
		}
		fmt.Fprintf(e.stdout, "bundle ok: %d files match the manifest; the journal's hash chain holds to entry %d (%s; its checkpoints' signatures are checked by cordon journal verify --allowed-signers); %s\n",
			len(v.Manifest.Files), v.Journal.Seq, shortHash(v.Journal.Hash), signed)
		if v.NotAsReceived > 0 {
			fmt.Fprintf(e.stdout, "warning: %d evidence file(s) in it no longer hashed to their receipt when it was made (as_received false in the manifest)\n", v.NotAsReceived)
		}
		return nil
	}
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
