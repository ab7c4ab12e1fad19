// Package credentials is the catalogue of where credentials are kept —
// cloud CLIs' files, service-account tokens, registry and git logins, keys,
// dotenv files, mounted secrets — and of the cloud metadata endpoints,
// matched by the structure of a path or a command line. Ingest applies it
// to every source at normalization; the capability set maps a read to the
// credential it exposes.
package credentials
