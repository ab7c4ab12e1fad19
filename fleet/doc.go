// Package fleet carries evidence over NATS JetStream: the subjects and the
// message shape of a normalized event, the stream that keeps them, a
// shipper that publishes what ingest's parsers read (with ingest's
// checkpoints, advanced only once the server acknowledged), and the reader
// a consumer runs: a durable pull consumer that decodes events, parses raw
// sensor records, and drops duplicates by event id past JetStream's window.
package fleet
