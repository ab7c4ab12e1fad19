// Command cordon is a terminal console for incidents in which an autonomous
// AI agent crossed the boundary of its evaluation sandbox.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cordon-ir/cordon/bundle"
	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/watch"
	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes, documented in `cordon help`.
const (
	exitOK           = 0
	exitError        = 1
	exitUsage        = 2
	exitUnreadable   = 3
	exitLocked       = 4
	exitIncompatible = 5
	exitNotFound     = 6
	exitTampered     = 7
	exitWrite        = 8
	exitLive         = 9
	exitCannotTell   = 10
	exitNoEvents     = 11
	exitWorse        = 12
)

// errUsage marks a command-line mistake.
var errUsage = errors.New("usage")

// command is one entry of the command tree: its name, the arguments its
// usage line shows, a summary for cordon help, and define, which adds its
// flags and its run to the cobra command built for it.
type command struct {
	name, args, summary string
	define              func(e *env, c *cobra.Command)
	subs                []command
}

// env is what a subcommand may touch.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// ws is a workspace this process already holds (cordon serve): the
	// commands it runs read it instead of opening the index again.
	ws *incident.Workspace
	// argv is the command line as given, "cordon" first: reports say
	// what built them.
	argv []string
	// columns is the terminal's width when a test sets it; 0 asks
	// stdout (see width).
	columns int
}

func commands() []command {
	return []command{
		{"open", openArgs, "the console: open a workspace, or ingest evidence in the background and open it at once", cmdOpen, nil},
		{"serve", serveArgs, "serve the console over SSH: public keys only, observers read-only, no shell or forwarding", cmdServe, nil},
		{"ingest", "--incident DIR [--format F] [--follow] FILE|DIR|- ...", "read evidence into an incident workspace (resumes, never duplicates; --follow keeps reading)", cmdIngest, nil},
		{"search", "--incident DIR [--json] [--since T] [--until T] [--limit N] [--sort time|-time|score] QUERY", "search the evidence (docs/query.md: clauses AND unless OR joins them; errors name the fix)", cmdSearch, nil},
		{"stats", "--incident DIR [--by FIELD] [--json]", "counts per value and the time span", cmdStats, nil},
		{"show", "--incident DIR [--json] ID", "one event: fields, origin and raw record", cmdShow, nil},
		{"rejects", "--incident DIR [--json]", "the records that did not parse, with file, line and reason", cmdRejects, nil},
		{"findings", findingsArgs, "what the detectors found, per agent: severity, span, explanation, evidence ids", cmdFindings, nil},
		{"agents", "--incident DIR [--json]", "each agent: model, run, sessions with sandbox, IP, container and interval, events, denials; attribution coverage", cmdAgents, nil},
		{"attribute", "--incident DIR", "attribute every proxy and sensor event to an agent again (ingest does this itself)", cmdAttribute, nil},
		{"subject", "--incident DIR [AGENT...]", "name the agents the incident is about (default: the first agent of the ranking, cordon findings --by agent) and show what the playbook fills in", cmdSubject, nil},
		{"steps", "--incident DIR [--json]", "the playbook: each step's status, who set it and its last evidence check", cmdSteps, nil},
		{"step", stepArgs, "record a playbook step started, done or skipped in the journal", cmdStep, nil},
		{"check", "--incident DIR [--json] [STEP_ID...]", "run the evidence checks (every step's, or those named) and journal the results", cmdCheck, nil},
		{"verdict", "--incident DIR [--as-of TIME] [--json]", "is every capability stopped? the case's one verdict per layer, as check renders it, without journaling (exit 0 stopped, 9 live, 10 cannot tell)", cmdVerdict, nil},
		{"action", "--incident DIR [--dry-run] [--confirm AGENT] STEP_ID ACTION", "run a step's configured command after typed confirmation; journal command, exit code and output", cmdAction, nil},
		{"journal", journalArgs, "the case journal, oldest first; verify checks its hash chain and names the first edited, missing or torn entry", cmdJournal, nil},
		{"note", noteArgs, "add a note to the case journal (works while an ingest holds the workspace)", cmdNote, nil},
		{"suppress", suppressArgs, "suppress a detector's findings for an agent, a value or a query, with a reason, on the record (never removes a finding nor changes a check); list shows them", cmdSuppress, []command{
			{"list", "--incident DIR [--json]", "the suppressions on the record, with how many findings each covers now", cmdSuppressList, nil},
		}},
		{"rules", rulesArgs, "which of the workspace's rules, saved searches and history read otherwise since unsigned clauses are required; such rules are refused until rewritten", cmdRules, []command{
			{"check", "--incident DIR [--rules FILE|DIR]", "list the queries whose meaning changed since unsigned clauses are required", cmdRulesCheck, nil},
			{"export", "--sigma [--out DIR] [--incident DIR]", "write cordon's rules as Sigma detection and correlation rules; those Sigma cannot express are named with the reason", cmdRulesExport, nil},
		}},
		{"playbook", playbookArgs, "lint playbook files (file:line:col per problem), or show the phases and steps of the built-in or a given playbook", cmdPlaybook, []command{
			{"lint", "FILE|DIR ...", "every problem of every playbook file as file:line:col", cmdPlaybookLint, nil},
			{"show", "[--yaml] [FILE]", "the phases and steps of the built-in playbook or of FILE", cmdPlaybookShow, nil},
		}},
		{"assist", assistArgs, "defender-mode assistant: summarize, timeline, cluster, explain, hypotheses, ask, query — claims cite checked event ids; offline without an endpoint; --check probes the endpoint", cmdAssist, nil},
		{"eval", evalArgs, "containment evaluations: lint or show a suite, score a test run's controls (fired, missed, could not tell) from its workspace", cmdEval, evalCommands()},
		{"report", reportArgs, "the incident report: the four questions answered from evidence, attribution, findings, kill switch, journal (md, json or html)", cmdReport, nil},
		{"export", exportArgs, "export events (all, or those matching QUERY) as Timesketch JSONL, oldest first", cmdExport, nil},
		{"drill", drillArgs, "tabletop drill: replay a sample incident in scenario time with injects and questions, then debrief the team", cmdDrill, []command{
			{"debrief", "DIR [--json]", "the debrief of a drill run before, from its folder (markdown, or --json)", cmdDrillDebrief, nil},
		}},
		{"evidence", evidenceArgs, "verify: hash every file ingested again and compare it with what the journal recorded on receipt (match, grew, changed, gone)", cmdEvidence, nil},
		{"bundle", bundleArgs, "write the case as one signed tar.gz (journal, report, findings, capabilities, evidence manifest; --with-evidence the files), or verify one", cmdBundle, []command{
			{"verify", "FILE.tar.gz [--allowed-signers FILE] [--json]", "verify a bundle: its files against the manifest, the journal's hash chain, its signature", cmdBundleVerify, nil},
		}},
		{"indicators", indicatorsArgs, "the indicator register: destinations, addresses, credential ids (never secrets), files, processes; first and last seen, agents, findings, evidence ids", cmdIndicators, nil},
		{"ship", shipArgs, "publish evidence as normalized events to a NATS JetStream stream (docs/fleet.md); checkpoints as ingest, advanced once the server acknowledged", cmdShip, nil},
		{"pull", pullArgs, "build an incident workspace from a JetStream stream: the named agents' evidence, by attribution, raw records intact, its receipt journaled (docs/fleet.md)", cmdPull, nil},
		{"archive", archiveArgs, "keep a JetStream stream's whole evidence in a store (victorialogs://) through a durable consumer, acknowledged once stored; case makes a workspace on the archive's events (docs/scale.md)", cmdArchive, []command{
			{"case", "ARCHIVE --incident DIR [--json]", "make DIR a case that reads the archive's events in place (nothing copied); then cordon open DIR", cmdArchiveCase, nil},
			{"slice", "ARCHIVE --agent A[,B] --since T [--until T] --incident DIR [--store victorialogs://HOST:PORT] [--json]", "make DIR a case of some agents' evidence taken from the archive, as cordon pull takes it from the stream (copied, its receipt journaled)", cmdArchiveSlice, nil},
		}},
		{"watch", watchArgs, "run the detectors on a JetStream stream of events and publish findings as created, updated, withdrawn on cordon.findings.<severity>.<agent> (docs/fleet.md)", cmdWatch, nil},
		{"bus", "init|check", "the documented NATS bus (docs/fleet.md, \"Security of the bus\"): make its three streams, or say how the events' stream takes its events and whose count as the gateway's ledger", cmdBus, []command{
			{"init", "--evidence URL --ledger URL --events URL [--replicas N] [--json]", "make the evidence's, the ledger's and the events' streams, each as its account's operator; one already there is checked, never changed", cmdBusInit, nil},
			{"check", "--nats URL [--stream S] [--json]", "the events' stream: its subjects or sources (how far behind each), and whose records count as the gateway's ledger", cmdBusCheck, nil},
		}},
		{"receipts", "verify|find --nats URL --watcher NAME [--stream S] [--json]", "the verdict receipts a watcher keeps (docs/verdicts.md); verify walks a watcher's hash chain and names every break (exit 7); find gives the answer a request was given", cmdReceipts, []command{
			{"verify", "--nats URL --watcher NAME [--stream S] [--json]", "walk a watcher's chain of verdict receipts and report every break", cmdReceiptsVerify, nil},
			{"find", "--nats URL --watcher NAME (--request ID | --verdict ID | --agent A) [--stream S] [--json]", "the receipts of a request, a verdict or an agent: the answer given, why, and under which rules and policy", cmdReceiptsFind, nil},
		}},
		{"formats", "", "list the input formats cordon reads", cmdFormats, nil},
		{"config", "path|check", "where the console's own settings are read from (key remaps, : aliases, saved searches, palette), and whether they read", cmdConfig, []command{
			{"path", "", "print the console config's path ($XDG_CONFIG_HOME/cordon/config.yaml)", cmdConfigPath, nil},
			{"check", "", "read the console config and say what it sets, or where it does not read", cmdConfigCheck, nil},
		}},
		{"bench", "[--events N] [--dir DIR] [--keep] [--queries N] [--json]", "generate a realistic incident, ingest it end to end and time the queries", cmdBench, nil},
		{"version", "[--json]", "the version of this cordon, its Go toolchain and platform", cmdVersion, nil},
		{"completion", "bash|zsh|fish|powershell", "a shell completion script (cordon completion bash > /etc/bash_completion.d/cordon)", nil, nil},
		{"man", "DIR", "write a man page per command into DIR (cordon.1, cordon-search.1, ...)", cmdMan, nil},
		{"help", "[COMMAND]", "this help, or a command's flags", nil, nil},
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := interruptible(context.Background())
	defer stop()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	return exitCode(stderr, stoppedBy(ctx, execute(ctx, e, args)))
}

// exitCode reports err and maps it to the documented exit codes.
func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	// An error is our own text, quoting what it cites with %q or Printable:
	// PrintableMessage keeps those quotes single.
	fmt.Fprintln(stderr, "cordon:", evidence.PrintableMessage(err.Error()))
	var h hintError
	if errors.As(err, &h) {
		fmt.Fprintln(stderr, "cordon:", evidence.PrintableMessage(h.hint))
	}
	var sig signalError
	switch {
	case errors.As(err, &sig):
		// the shell's convention for a process a signal ended
		return 128 + int(sig.sig)
	case errors.Is(err, journal.ErrShared):
		fmt.Fprintf(stderr, "cordon: to write into it as it is, pass --allow-shared (or set %s=1)\n", allowSharedEnv)
		return exitError
	case errors.Is(err, errUsage), errors.Is(err, evidence.ErrQuery):
		return exitUsage
	case errors.Is(err, ingest.ErrUnreadable), errors.Is(err, ingest.ErrUnknownFormat):
		return exitUnreadable
	case errors.Is(err, journal.ErrTampered), errors.Is(err, watch.ErrChainBroken), errors.Is(err, incident.ErrEvidenceChanged), errors.Is(err, bundle.ErrBundle):
		return exitTampered
	case errors.Is(err, evidence.ErrWrite):
		return exitWrite
	case errors.Is(err, journal.ErrLocked), errors.Is(err, fleet.ErrStateLocked), errors.Is(err, incident.ErrHeld):
		return exitLocked
	case errors.Is(err, evidence.ErrIncompatible):
		return exitIncompatible
	case errors.Is(err, incident.ErrNoIncident), errors.Is(err, evidence.ErrNotFound):
		return exitNotFound
	case errors.Is(err, incident.ErrLive):
		return exitLive
	case errors.Is(err, incident.ErrCannotTell):
		return exitCannotTell
	case errors.Is(err, ingest.ErrNoEvents):
		return exitNoEvents
	case errors.Is(err, eval.ErrWorse):
		return exitWorse
	}
	return exitError
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "cordon — incident console for AI agents that crossed their sandbox boundary")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  cordon %s\n      %s\n", strings.TrimSpace(c.name+" "+c.args), c.summary)
	}
	fmt.Fprint(w, `
Queries (docs/query.md):
  agent:agent-7 decision:deny       field values are exact; every clause must match (AND)
  curl OR wget                      either; NOT or a leading - excludes; ( ) group
  kind:proc_exec cmdline:(curl OR wget)   words inside command lines, URLs, paths; field:(a OR b)
  dst_host:*.example.com            wildcards; /regexp/, /regexp/i for any case
  nohup                             a bare word searches message, command line, URL, path and raw text
  bytes_out:>1000000                numeric range on bytes_out / bytes_in
  time:>"2026-07-21T10:00:00Z"      time range (or --since / --until)
  An unknown field, a value in the wrong case or a dangling operator is an error (exit 2) with
  the fix; "read as:" on stderr shows how a query was read. cordon rules check lists the
  queries a workspace keeps whose meaning changed when unsigned clauses became required.

Exit codes:
  0  ok (rejected records are reported, not fatal)
  1  other error
  2  usage error or bad query
  3  unreadable input or unknown format
  4  incident workspace locked by another process
  5  index built by another cordon version (rebuild it)
  6  no such incident or event
  7  the case journal does not verify (edited, deleted, reordered or torn entries)
  8  the evidence could not be written (disk full, not writable): what was stored is kept,
      and the same command again resumes after it
  9  check: a kill-switch layer is live (a capability was used after the kill and nothing
      its issuer recorded ended it)
  10 check: cannot tell whether every layer is stopped (no kill time, a claimed end only, or
      no source that could see a use: the line names the one missing)
  11 ingest: an input that is not empty gave no event (every record rejected, or its only
      line unfinished): each is named with where and why; a re-run that adds nothing new
      and a valid empty file ({"Records":[]}) exit 0
  12 eval diff: a control's outcome got worse between the two runs (fired → could not
      tell → missed)
  130 stopped by SIGINT (ctrl-c), 143 by SIGTERM: the workspace lock is released, and an
      ingest keeps every batch it indexed and resumes after it when run again

Workspaces are private to their owner (0700, files 0600). Writers (ingest, step, note, check,
action, subject, attribute, assist, open, serve) refuse one other users can read unless given
--allow-shared or `+allowSharedEnv+`=1; readers work on any, read-only media included.
`)
}
