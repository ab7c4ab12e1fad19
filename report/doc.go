// Package report reads an incident's case and writes what it shows: the
// incident report (JSON, Markdown, HTML) answering the four questions from
// the evidence and the journal, and the exports other tools import
// (Timesketch JSONL). It only reads: nothing here journals or ingests.
package report
