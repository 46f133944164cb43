// Tokenize sample lines with the TextMate grammars, the way VS Code does (vscode-textmate +
// vscode-oniguruma), and print JSON: {scopeName: [{line, tokens: [{text, scopes}]}]}.
//
//   node tokenize.mjs                      built-in samples for both grammars
//   node tokenize.mjs samples.json         {"source.trec-qrels": ["line", ...], ...}
//
// Used by tests/editors/test_grammars.py; needs `npm install` in this folder.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const here = dirname(fileURLToPath(import.meta.url));
const grammarsDir = join(here, "..", "..", "..", "grammars");
const GRAMMARS = {
  "source.trec-qrels": join(grammarsDir, "trec-qrels.tmLanguage.json"),
  "source.trec-run": join(grammarsDir, "trec-run.tmLanguage.json"),
};

const SAMPLES = {
  "source.trec-qrels": [
    "# judged by the support team, 2024-10",
    "e1042 0 errors/e1042-firmware-mismatch.md 3",
    "login-after-reset\tQ0\tkb/auth-failures.md\t1",
    "e1042 0 kb/firmware.md 1.5",
    "e1042 0 kb/firmware.md",
    "e1042 0 kb/firmware.md two",
    "",
  ],
  "source.trec-run": [
    "ethernet-backhaul Q0 setup/wired-backhaul.md 3 0.030679 hybrid",
    "q1\tQ0\tdoc-7\t1\t-1.5e-3\tbm25",
    "q1 Q0 doc-7 1 12 bm25",
    "q1 Q0 doc-7 first 0.5 bm25",
    "q1 Q0 doc-7 1 0.5",
    "# not something trec_eval reads",
  ],
};

const wasm = readFileSync(join(dirname(require.resolve("vscode-oniguruma")), "onig.wasm")).buffer;
await oniguruma.loadWASM(wasm);
const onigLib = Promise.resolve({
  createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
  createOnigString: (s) => new oniguruma.OnigString(s),
});
const registry = new vsctm.Registry({
  onigLib,
  loadGrammar: async (scopeName) => {
    const path = GRAMMARS[scopeName];
    if (!path) return null;
    return vsctm.parseRawGrammar(readFileSync(path, "utf8"), path);
  },
});

const samples = process.argv[2] ? JSON.parse(readFileSync(process.argv[2], "utf8")) : SAMPLES;
const out = {};
for (const [scopeName, lines] of Object.entries(samples)) {
  const grammar = await registry.loadGrammar(scopeName);
  if (!grammar) throw new Error(`cannot load grammar ${scopeName}`);
  let state = vsctm.INITIAL;
  out[scopeName] = lines.map((line) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return {
      line,
      tokens: r.tokens.map((t) => ({
        text: line.slice(t.startIndex, t.endIndex),
        scopes: t.scopes,
      })),
    };
  });
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
