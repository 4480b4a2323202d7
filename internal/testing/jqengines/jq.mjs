// A jq-like command over jq compiled to WebAssembly (npm jq-wasm), for the
// recipe tests: the same jq releases users run, without installing them.
//
//   node jq.mjs 1.7.1 [jq options] FILTER < input     like jq itself
//   node jq.mjs 1.8.2 --serve                          one job per line
//   node jq.mjs 1.8.2 --version                        the jq release bundled
//
// ENGINE is a dependency of package.json (jq-1.7.1, jq-1.8.2). The first
// form reads the whole of standard input, runs jq with the options and
// FILTER, and writes jq's output, errors and exit code as jq does. --serve
// runs many jobs in one process (loading the WebAssembly once): each line of
// standard input is {"args": [...options, FILTER], "input": "..."} and gets
// one line {"stdout", "stderr", "exitCode"} back.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [, , version, ...args] = process.argv;
if (!version || args.length === 0) {
  process.stderr.write("usage: node jq.mjs VERSION [jq options] FILTER < input\n       node jq.mjs VERSION --serve\n");
  process.exit(2);
}
const mod = await import(`jq-${version}`);
const jq = mod.default ?? mod;

const version_ = await jq.version(); // loads the WebAssembly

// InputBytes is the input as jq-wasm 1.7.1 holds it while jq reads it:
// that build hands jq its standard input a byte at a time and drops the
// byte read with slice(1), a copy of the rest, so reading n bytes copies
// about n*n/2 (seconds for the recipe tests' files of a few hundred KB).
// Here slice is a view of the same bytes, which nothing writes to: jq
// reads the same bytes in the same order, in time linear in n.
class InputBytes extends Uint8Array {
  slice(start, end) {
    return this.subarray(start, end);
  }
}

// run returns jq's output for input, byte for byte. jq-wasm trims the
// output it collects (String.prototype.trim), which would hide leading and
// trailing spaces of raw output, so trim is the identity while jq runs; its
// 1.7.1 build turns the input into bytes with TextEncoder (for nothing
// else), which returns InputBytes while jq runs. Only one job runs at a
// time.
async function run(input, argv) {
  const flags = argv.slice(0, -1);
  const filter = argv[argv.length - 1];
  const trim = String.prototype.trim;
  const encode = TextEncoder.prototype.encode;
  String.prototype.trim = function () {
    return String(this);
  };
  if (version === "1.7.1") {
    TextEncoder.prototype.encode = function (s) {
      const b = encode.call(this, s);
      return new InputBytes(b.buffer, b.byteOffset, b.length);
    };
  }
  let r;
  try {
    r = await jq.raw(input, filter, flags);
  } finally {
    String.prototype.trim = trim;
    TextEncoder.prototype.encode = encode;
  }
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
}

if (args.length === 1 && args[0] === "--version") {
  process.stdout.write(version_ + "\n"); // e.g. jq-1.7.1-dirty
} else if (args.length === 1 && args[0] === "--serve") {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    const job = JSON.parse(line);
    let r;
    try {
      r = await run(job.input, job.args);
    } catch (e) {
      r = { stdout: "", stderr: String(e) + "\n", exitCode: 5 };
    }
    process.stdout.write(JSON.stringify(r) + "\n");
  }
} else {
  const r = await run(readFileSync(0, "utf8"), args);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.exitCode;
}
