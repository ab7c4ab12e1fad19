// Package parsetest holds what the tests of every parser package share:
// parsing a sample through the real ingest stream, golden files of the
// normalized events, the real samples, and the fuzz target's body.
package parsetest
