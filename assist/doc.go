// Package assist is cordon's defender-mode assistant: a scope gate that
// refuses offensive requests before any model call, an evidence packet
// built from the index (token-budgeted, secrets redacted, instruction-like
// text flagged and quoted as untrusted data), a client for any
// OpenAI-compatible endpoint that offers the model no tools, and answers
// whose every claim must cite event ids from the packet. With no endpoint,
// a deterministic offline summary and timeline still work.
package assist
