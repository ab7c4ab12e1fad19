// Package bundle writes and checks a case bundle: one tar.gz holding an
// incident's journal, report, findings, capability sets and evidence
// manifest (and, when asked, the evidence files), with a manifest of their
// SHA-256 digests that an SSH key signs in the format stock OpenSSH checks.
package bundle
