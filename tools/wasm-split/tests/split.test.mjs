// tools/wasm-split on a small module written to exercise what the app's module does: a
// shared memory (with a data segment), a mutable global (the stack pointer), a function
// table with indirect calls, a JS import called from cold code, cold code calling hot code
// and cold code, and exported functions that end up cold.
//
//   node --test tools/wasm-split/tests/
//
// Builds the tool (cargo, offline) and reads WAT with npm's binaryen (.tools/, installed
// by scripts/setup.sh). Each case runs the same calls on the original module and on the
// split pair and wants the same answers and the same memory and global effects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTool } from '../../../scripts/split.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');
const { default: binaryen } = await import(join(root, '.tools', 'node_modules', 'binaryen', 'index.js'));
const tool = buildTool(root);

// Function numbers (imports first): 0 load, 1 log, 2 kvlab_split_ensure, 3 $hot_b,
// 4 $cold_a, 5 $cold_c, 6 entry, 7 indirect, 8 sp, 9 $unused.
const WAT = `
(module
  (import "env" "load" (func $load))
  (import "env" "log" (func $log (param i32)))
  (memory (export "memory") 1)
  (global $sp (mut i32) (i32.const 1024))
  (table 4 funcref)
  (elem (i32.const 1) $cold_a $hot_b)
  (data (i32.const 16) "\\2a")
  (type $ii_i (func (param i32 i32) (result i32)))
  (func $ensure (export "kvlab_split_ensure") (call $load))
  (func $hot_b (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func $cold_a (param i32 i32) (result i32)
    (global.set $sp (i32.add (global.get $sp) (i32.const 1)))
    (i32.store8 (i32.const 17) (i32.add (i32.load8_u (i32.const 17)) (i32.const 1)))
    (call $log (local.get 0))
    (call $cold_c (call $hot_b (i32.add (i32.add (local.get 0) (local.get 1)) (i32.load8_u (i32.const 16))))))
  (func $cold_c (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
  (func (export "entry") (param i32 i32) (result i32) (call $cold_a (local.get 0) (local.get 1)))
  (func (export "indirect") (param i32 i32) (result i32)
    (call_indirect (type $ii_i) (local.get 0) (local.get 1) (i32.const 1)))
  (func (export "sp") (result i32) (global.get $sp))
  (func $unused (export "count") (result i32) (i32.load8_u (i32.const 17)))
)`;

function wasmOf(wat) {
  const m = binaryen.parseText(wat);
  try {
    // Not Features.All: it writes imports in a compact encoding Node.js does not read.
    m.setFeatures(binaryen.Features.MutableGlobals | binaryen.Features.BulkMemory | binaryen.Features.ReferenceTypes);
    assert.ok(m.validate(), 'the test module is valid');
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}

/** The functions a module defines (not imports). */
function defined(bytes) {
  const m = binaryen.readBinary(bytes);
  try {
    const out = [];
    for (let i = 0; i < m.getNumFunctions(); i++) {
      const f = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
      if (!f.module) out.push(f.name);
    }
    return out;
  } finally {
    m.dispose();
  }
}

/** Runs `calls` (export name and arguments) and returns every answer and effect. */
function drive(exports, logged, calls) {
  const out = calls.map(([name, ...args]) => exports[name](...args));
  return { out, logged: [...logged], sp: exports.sp(), count: exports.count() };
}

function runOriginal(bytes, calls) {
  const logged = [];
  const env = { load() { throw new Error('the original never loads'); }, log: (x) => logged.push(x) };
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env });
  return drive(exports, logged, calls);
}

/** Instantiates the split pair; the secondary loads when a stub asks (or up front). */
function runSplit(primary, secondary, calls, { preload = false } = {}) {
  const logged = [];
  let loads = 0;
  let exports;
  const load = () => {
    loads++;
    new WebAssembly.Instance(new WebAssembly.Module(secondary), { primary: exports });
  };
  const env = { load, log: (x) => logged.push(x) };
  exports = new WebAssembly.Instance(new WebAssembly.Module(primary), { env }).exports;
  assert.equal(exports.__kvlab_split_loaded.value, 0);
  if (preload) load();
  const result = drive(exports, logged, calls);
  assert.equal(exports.__kvlab_split_loaded.value, 1, 'the secondary marked itself loaded');
  return { result, loads };
}

async function withTool(fn) {
  const dir = await mkdtemp(join(tmpdir(), 'kvlab-split-test-'));
  try {
    return await fn(dir, (...args) => execFileSync(tool, args, { stdio: ['ignore', 'ignore', 'pipe'] }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function split(dir, run, bytes, profile) {
  const [input, prof, p, s] = ['in.wasm', 'profile', 'primary.wasm', 'secondary.wasm'].map((f) => join(dir, f));
  await writeFile(input, bytes);
  await writeFile(prof, profile.join('\n') + '\n');
  run('split', input, prof, p, s);
  return [await readFile(p), await readFile(s)];
}

const CALLS = [['entry', 3, 4], ['indirect', 5, 6], ['entry', 0, 0]];

test('instrument marks the functions a run called, by number', async () => {
  await withTool(async (dir, run) => {
    const input = join(dir, 'in.wasm');
    await writeFile(input, wasmOf(WAT));
    run('instrument', input, join(dir, 'out.wasm'));
    const env = { load() {}, log() {} };
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(await readFile(join(dir, 'out.wasm'))), { env });
    assert.equal(exports.entry(1, 2), 2 * (1 + 2 + 42 + 1));
    const hot = Object.entries(exports)
      .filter(([name, g]) => name.startsWith('__kvlab_prof_') && g.value !== 0)
      .map(([name]) => Number(name.slice('__kvlab_prof_'.length)))
      .sort((a, b) => a - b);
    assert.deepEqual(hot, [3, 4, 5, 6]); // hot_b, cold_a, cold_c, entry
  });
});

test('hot code calling cold code: same answers and effects, one load on first use', async () => {
  const bytes = wasmOf(WAT);
  const want = runOriginal(bytes, CALLS);
  assert.deepEqual(want.out, [100, 108, 86]);
  await withTool(async (dir, run) => {
    // entry and indirect are hot; cold_a (called directly and through the table) and
    // cold_c go to the secondary, which calls back into hot_b and the JS import.
    const [primary, secondary] = await split(dir, run, bytes, [3, 6, 7, 8, 9]);
    // The primary keeps cold_a as a stub (hot code and the table reach it) but not
    // cold_c; the secondary defines both, and its start function.
    assert.deepEqual(defined(primary).length, defined(bytes).length - 1);
    assert.equal(defined(secondary).length, 3);
    const { result, loads } = runSplit(primary, secondary, CALLS);
    assert.deepEqual(result, want);
    assert.equal(loads, 1);
    const names = WebAssembly.Module.imports(new WebAssembly.Module(secondary)).map((i) => `${i.module}.${i.name}:${i.kind}`);
    assert.ok(names.every((n) => n.startsWith('primary.')), `secondary imports only from the primary: ${names}`);
    assert.ok(names.includes('primary.m0:memory') && names.includes('primary.t0:table'));
    assert.deepEqual(WebAssembly.Module.exports(new WebAssembly.Module(secondary)), []);
  });
});

test('an empty profile: exported functions become stubs, and a preloaded secondary is never loaded again', async () => {
  const bytes = wasmOf(WAT);
  const want = runOriginal(bytes, CALLS);
  await withTool(async (dir, run) => {
    const [primary, secondary] = await split(dir, run, bytes, []);
    const lazy = runSplit(primary, secondary, CALLS);
    assert.deepEqual(lazy.result, want);
    assert.equal(lazy.loads, 1);
    const eager = runSplit(primary, secondary, CALLS, { preload: true });
    assert.deepEqual(eager.result, want);
    assert.equal(eager.loads, 1, 'only the preload');
  });
});

test('a module without the loader export is refused', async () => {
  const bytes = wasmOf(WAT.replace('(export "kvlab_split_ensure")', ''));
  await withTool(async (dir, run) => {
    await assert.rejects(split(dir, run, bytes, []), /does not export kvlab_split_ensure/);
  });
});

test('cold code that takes a function reference is refused, not split wrongly', async () => {
  const wat = WAT.replace(
    '(func $cold_c (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))',
    '(elem declare func $hot_b)\n  (func $cold_c (param i32) (result i32) (drop (ref.func $hot_b)) (i32.mul (local.get 0) (i32.const 2)))',
  );
  await withTool(async (dir, run) => {
    await assert.rejects(split(dir, run, wasmOf(wat), []), /uses ref.func/);
  });
});
