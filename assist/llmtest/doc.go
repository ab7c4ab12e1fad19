// Package llmtest runs loopback chat-completions servers that behave like
// the ones responders run (llama.cpp's llama-server, Ollama, vLLM and
// OpenAI): their model lists and settings, their context limits counted
// with a real tokenizer, their error bodies, their streams, and replies
// stopped at max_tokens mid-JSON. For tests only; it listens on loopback.
package llmtest
