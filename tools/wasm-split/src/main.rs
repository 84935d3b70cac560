//! `kvlab-wasm-split`: splits the web app's release wasm in two, guided by a profile of the
//! functions that start-up runs, so the page's first load carries only those.
//!
//! ```text
//! kvlab-wasm-split instrument IN.wasm OUT.wasm
//! kvlab-wasm-split split IN.wasm PROFILE PRIMARY.wasm SECONDARY.wasm [--callees N]
//! ```
//!
//! `--callees N` also keeps N levels of the profiled functions' direct callees in the
//! primary: a measurement knob, not used by the build (on the app, one level cost 46 KB of
//! gzip in the primary, two levels 83 KB).
//!
//! `scripts/split.mjs` drives it from trunk's post-build hook: it instruments the module,
//! boots the app on it in headless Chromium, writes the profile, and splits.
//!
//! # Instrumenting
//! Every function defined in the module gets a mutable `i32` global, exported as
//! `__kvlab_prof_<n>`, that its first instruction sets to 1; `n` is the function's index
//! in the module (imports first, as the binary numbers them). The profile is the list of
//! the `n` whose global is 1 after the run, one per line.
//!
//! # Splitting
//! Both outputs come from the same input, so a function keeps its identity in both.
//! A defined function is *hot* if the profile names it (or the loader needs it, below),
//! otherwise *cold*.
//!
//! - **Primary**: every hot function as it was. A cold function that something in the
//!   primary still reaches (a hot function's call, the function table, an export) keeps
//!   its index and signature but its body becomes a *stub*: if the global
//!   `__kvlab_split_loaded` is 0, call the Rust export `kvlab_split_ensure` (which loads
//!   the secondary module synchronously, see `src/ui/split.rs`); then pass the arguments
//!   on with `call_indirect` through a slot of the function table reserved for it. Cold
//!   functions nothing reaches any more are dropped. The primary also exports what the
//!   secondary imports: memories, tables, mutable and imported globals, and the functions
//!   (hot ones, and JS imports) that cold code calls, as `m<n>`, `t<n>`, `g<n>`, `f<n>`.
//! - **Secondary**: the stubbed functions and every cold function they reach, with their
//!   own bodies. Everything else comes from the primary by import (module `primary`), so
//!   both share one memory, one stack pointer and one function table. It has no data
//!   segments (the primary's already initialised memory) and no exports; an active element
//!   segment puts its functions into the reserved table slots, and its start function sets
//!   `__kvlab_split_loaded` to 1. Instantiating it is all a loader does.
//!
//! `kvlab_split_ensure` and every function it calls directly are hot whatever the profile
//! says: a stub reached while loading would call the loader again.
//!
//! The split refuses modules it cannot split safely: cold code that uses passive data or
//! element segments (`memory.init`, `table.init`), exception tags or `ref.func`; globals
//! initialised with `ref.func`; an imported function table, or more than one.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::process::ExitCode;

use walrus::ir::{self, Visitor};
use walrus::{
    ConstExpr, ElementItems, ElementKind, ExportItem, FunctionBuilder, FunctionId, FunctionKind,
    GlobalKind, ImportKind, ImportedFunction, Module, ValType,
};

type Result<T> = std::result::Result<T, String>;

/// The Rust export a stub calls to load the secondary module (`src/ui/split.rs`).
const ENSURE: &str = "kvlab_split_ensure";
/// The primary's global that tells stubs whether the secondary is in.
const LOADED: &str = "__kvlab_split_loaded";
/// Prefix of the instrumented module's per-function globals.
const PROF: &str = "__kvlab_prof_";
/// The module name the secondary imports everything under.
const PRIMARY: &str = "primary";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["instrument", input, output] => instrument(input, output),
        ["split", input, profile, primary, secondary] => {
            split_files(input, profile, primary, secondary, 0)
        }
        ["split", input, profile, primary, secondary, "--callees", depth] => match depth.parse() {
            Ok(depth) => split_files(input, profile, primary, secondary, depth),
            Err(_) => Err(format!("--callees takes a number, not {depth:?}")),
        },
        _ => Err("usage: kvlab-wasm-split instrument IN OUT\n       \
                  kvlab-wasm-split split IN PROFILE PRIMARY SECONDARY [--callees N]"
            .into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kvlab-wasm-split: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

fn write(path: &str, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).map_err(|e| format!("{path}: {e}"))
}

fn parse(bytes: &[u8]) -> Result<Module> {
    Module::from_buffer(bytes).map_err(|e| format!("cannot read the module: {e}"))
}

/// A function's number as the binary has it: imports first, then definitions, each in
/// order. Both outputs of one input agree on it, and so does the instrumented module.
fn numbering(m: &Module) -> BTreeMap<FunctionId, u32> {
    let imports = m
        .funcs
        .iter()
        .filter(|f| matches!(f.kind, FunctionKind::Import(_)));
    let locals = m
        .funcs
        .iter()
        .filter(|f| matches!(f.kind, FunctionKind::Local(_)));
    imports
        .chain(locals)
        .zip(0..)
        .map(|(f, n)| (f.id(), n))
        .collect()
}

fn instrument(input: &str, output: &str) -> Result<()> {
    let mut m = parse(&read(input)?)?;
    let numbers = numbering(&m);
    let locals: Vec<FunctionId> = m.funcs.iter_local().map(|(id, _)| id).collect();
    for id in locals {
        let g = m.globals.add_local(
            ValType::I32,
            true,
            false,
            ConstExpr::Value(ir::Value::I32(0)),
        );
        m.exports.add(&format!("{PROF}{}", numbers[&id]), g);
        let body = m.funcs.get_mut(id).kind.unwrap_local_mut();
        let mut entry = body.builder_mut().func_body();
        entry.instr_at(0, ir::GlobalSet { global: g });
        entry.instr_at(
            0,
            ir::Const {
                value: ir::Value::I32(1),
            },
        );
    }
    write(output, &m.emit_wasm())
}

fn split_files(
    input: &str,
    profile: &str,
    primary: &str,
    secondary: &str,
    depth: u32,
) -> Result<()> {
    let bytes = read(input)?;
    let text = String::from_utf8(read(profile)?).map_err(|_| format!("{profile}: not text"))?;
    let mut hot = BTreeSet::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        hot.insert(
            line.parse::<u32>()
                .map_err(|_| format!("{profile}: bad line {line:?}"))?,
        );
    }
    let out = split(&bytes, &hot, depth)?;
    write(primary, &out.primary)?;
    write(secondary, &out.secondary)?;
    eprintln!(
        "kvlab-wasm-split: {} functions hot, {} in the secondary module ({} reached through stubs)",
        out.hot, out.cold, out.stubs
    );
    Ok(())
}

/// The two modules of a split, and counts for the log.
struct Split {
    primary: Vec<u8>,
    secondary: Vec<u8>,
    hot: usize,
    cold: usize,
    stubs: usize,
}

/// What one defined function refers to.
#[derive(Default)]
struct Refs {
    funcs: Vec<FunctionId>,
    /// Uses passive segments (`memory.init`, `data.drop`, `table.init`, `elem.drop`).
    segments: bool,
    tags: bool,
    /// Uses `ref.func` (which the secondary would have to declare in an element segment).
    ref_func: bool,
}

impl<'a> Visitor<'a> for Refs {
    fn visit_function_id(&mut self, f: &FunctionId) {
        self.funcs.push(*f);
    }
    fn visit_data_id(&mut self, _: &walrus::DataId) {
        self.segments = true;
    }
    fn visit_element_id(&mut self, _: &walrus::ElementId) {
        self.segments = true;
    }
    fn visit_tag_id(&mut self, _: &walrus::TagId) {
        self.tags = true;
    }
    fn visit_ref_func(&mut self, _: &ir::RefFunc) {
        self.ref_func = true;
    }
}

fn refs_of(m: &Module) -> BTreeMap<FunctionId, Refs> {
    m.funcs
        .iter_local()
        .map(|(id, f)| {
            let mut refs = Refs::default();
            ir::dfs_in_order(&mut refs, f, f.entry_block());
            (id, refs)
        })
        .collect()
}

/// Functions the module reaches from outside any function body: exports, the start
/// function, element segments and global initialisers.
fn roots(m: &Module) -> Vec<FunctionId> {
    let mut out: Vec<FunctionId> = m
        .exports
        .iter()
        .filter_map(|e| match e.item {
            ExportItem::Function(f) => Some(f),
            _ => None,
        })
        .collect();
    out.extend(m.start);
    for e in m.elements.iter() {
        match &e.items {
            ElementItems::Functions(fs) => out.extend(fs),
            ElementItems::Expressions(_, exprs) => {
                out.extend(exprs.iter().filter_map(|c| match c {
                    ConstExpr::RefFunc(f) => Some(*f),
                    _ => None,
                }))
            }
        }
    }
    for g in m.globals.iter() {
        if let GlobalKind::Local(ConstExpr::RefFunc(f)) = g.kind {
            out.push(f);
        }
    }
    out
}

fn split(bytes: &[u8], profile: &BTreeSet<u32>, depth: u32) -> Result<Split> {
    let mut p = parse(bytes)?;
    let numbers = numbering(&p);
    let refs = refs_of(&p);
    let is_local = |f: &FunctionId| refs.contains_key(f);

    // Hot: the profile (and `depth` levels of its direct callees), plus the loader's
    // direct-call closure.
    let mut hot: HashSet<FunctionId> = refs
        .keys()
        .copied()
        .filter(|f| profile.contains(&numbers[f]))
        .collect();
    for _ in 0..depth {
        let callees: Vec<FunctionId> = hot
            .iter()
            .flat_map(|f| refs[f].funcs.iter().copied())
            .filter(|g| is_local(g))
            .collect();
        hot.extend(callees);
    }
    let ensure = p
        .exports
        .get_func(ENSURE)
        .map_err(|_| format!("the module does not export {ENSURE} (src/ui/split.rs)"))?;
    let mut stack = vec![ensure];
    let mut seen: HashSet<FunctionId> = HashSet::new();
    while let Some(f) = stack.pop() {
        if is_local(&f) && seen.insert(f) {
            hot.insert(f);
            stack.extend(refs[&f].funcs.iter().copied());
        }
    }

    // Stubs: cold functions the primary still reaches (through hot code only).
    let mut stubbed: Vec<FunctionId> = Vec::new();
    let mut seen: HashSet<FunctionId> = HashSet::new();
    let mut stack = roots(&p);
    while let Some(f) = stack.pop() {
        if !seen.insert(f) || !is_local(&f) {
            continue;
        }
        if hot.contains(&f) {
            stack.extend(refs[&f].funcs.iter().copied());
        } else {
            stubbed.push(f);
        }
    }
    stubbed.sort_by_key(|f| numbers[f]);

    // The secondary's functions: the stubbed ones and the cold code they reach.
    let mut cold: BTreeSet<FunctionId> = BTreeSet::new();
    let mut needs: BTreeSet<FunctionId> = BTreeSet::new(); // from the primary
    let mut stack = stubbed.clone();
    while let Some(f) = stack.pop() {
        if !is_local(&f) || hot.contains(&f) {
            needs.insert(f);
            continue;
        }
        if !cold.insert(f) {
            continue;
        }
        let r = &refs[&f];
        if r.segments {
            return Err(format!(
                "cold function {} uses a passive segment",
                numbers[&f]
            ));
        }
        if r.tags {
            return Err(format!("cold function {} uses exception tags", numbers[&f]));
        }
        if r.ref_func {
            return Err(format!("cold function {} uses ref.func", numbers[&f]));
        }
        stack.extend(r.funcs.iter().copied());
    }
    if p.tags.iter().next().is_some() {
        return Err("the module declares exception tags".into());
    }
    let funcref_tables = p
        .tables
        .iter()
        .filter(|t| t.element_ty == walrus::RefType::FUNCREF);
    if funcref_tables.count() != 1 {
        return Err("the module must have exactly one function table".into());
    }
    let table = p
        .tables
        .main_function_table()
        .map_err(|e| e.to_string())?
        .ok_or("the module has no function table")?;
    if p.tables.get(table).import.is_some() {
        return Err("the function table is imported; its size is not the module's to grow".into());
    }
    if p.globals
        .iter()
        .any(|g| matches!(g.kind, GlobalKind::Local(ConstExpr::RefFunc(_))))
    {
        return Err("a global is initialised with ref.func".into());
    }
    let n_stubs = stubbed.len() as u64;
    let base = p.tables.get(table).initial;
    if base + n_stubs > u32::MAX as u64 {
        return Err("the function table would overflow".into());
    }

    // Ids belong to one parse; what crosses to the secondary goes as positions.
    let table_pos = p.tables.iter().position(|t| t.id() == table).unwrap_or(0);
    let shared_globals: Vec<usize> = p
        .globals
        .iter()
        .enumerate()
        .filter(|(_, g)| g.mutable || matches!(g.kind, GlobalKind::Import(_)))
        .map(|(i, _)| i)
        .collect();
    let needs: Vec<u32> = needs.iter().map(|f| numbers[f]).collect();
    let cold: BTreeSet<u32> = cold.iter().map(|f| numbers[f]).collect();
    let stubbed_numbers: Vec<u32> = stubbed.iter().map(|f| numbers[f]).collect();
    let n_memories = p.memories.iter().count();
    let n_tables = p.tables.iter().count();

    // ---- Primary.
    {
        let t = p.tables.get_mut(table);
        t.initial += n_stubs;
        if let Some(max) = t.maximum.as_mut() {
            *max += n_stubs;
        }
    }
    let loaded = p.globals.add_local(
        ValType::I32,
        true,
        false,
        ConstExpr::Value(ir::Value::I32(0)),
    );
    p.exports.add(LOADED, loaded);
    for (slot, &f) in (base..).zip(&stubbed) {
        let ty = p.funcs.get(f).ty();
        let (params, results) = {
            let t = p.types.get(ty);
            (t.params().to_vec(), t.results().to_vec())
        };
        let args: Vec<_> = params.iter().map(|&v| p.locals.add(v)).collect();
        let mut b = FunctionBuilder::new(&mut p.types, &params, &results);
        let mut body = b.func_body();
        body.global_get(loaded).unop(ir::UnaryOp::I32Eqz).if_else(
            None,
            |then| {
                then.call(ensure);
            },
            |_| {},
        );
        for &a in &args {
            body.local_get(a);
        }
        body.i32_const(slot as i32).call_indirect(ty, table);
        p.funcs.get_mut(f).kind = FunctionKind::Local(b.local_func(args));
    }
    // What the secondary imports.
    let by_number: BTreeMap<u32, FunctionId> = numbers.iter().map(|(&f, &n)| (n, f)).collect();
    let memories: Vec<_> = p.memories.iter().map(|m| m.id()).collect();
    let tables: Vec<_> = p.tables.iter().map(|t| t.id()).collect();
    let globals: Vec<_> = p.globals.iter().map(|g| g.id()).collect();
    let mut exported: HashSet<String> = p.exports.iter().map(|e| e.name.clone()).collect();
    let mut export = |p: &mut Module, name: String, item: ExportItem| {
        if exported.insert(name.clone()) {
            p.exports.add(&name, item);
        }
    };
    for &n in &needs {
        export(&mut p, format!("f{n}"), ExportItem::Function(by_number[&n]));
    }
    for (i, &m) in memories.iter().enumerate() {
        export(&mut p, format!("m{i}"), ExportItem::Memory(m));
    }
    for (i, &t) in tables.iter().enumerate() {
        export(&mut p, format!("t{i}"), ExportItem::Table(t));
    }
    for &i in &shared_globals {
        export(&mut p, format!("g{i}"), ExportItem::Global(globals[i]));
    }
    walrus::passes::gc::run(&mut p);
    let primary = p.emit_wasm();

    // ---- Secondary, from a fresh parse of the same input.
    let mut s = parse(bytes)?;
    let s_numbers = numbering(&s);
    let s_by_number: BTreeMap<u32, FunctionId> = s_numbers.iter().map(|(&f, &n)| (n, f)).collect();
    let memories: Vec<_> = s.memories.iter().map(|m| m.id()).collect();
    let tables: Vec<_> = s.tables.iter().map(|t| t.id()).collect();
    let globals: Vec<_> = s.globals.iter().map(|g| g.id()).collect();
    if memories.len() != n_memories || tables.len() != n_tables {
        return Err("two parses of the module disagree".into());
    }
    let table = tables[table_pos];
    let s_max = s.tables.get(table).maximum.map(|m| m + n_stubs);
    for id in s.exports.iter().map(|e| e.id()).collect::<Vec<_>>() {
        s.exports.delete(id);
    }
    s.start = None;
    for id in s.data.iter().map(|d| d.id()).collect::<Vec<_>>() {
        s.data.delete(id);
    }
    for id in s.elements.iter().map(|e| e.id()).collect::<Vec<_>>() {
        s.elements.delete(id);
    }
    for (i, &m) in memories.iter().enumerate() {
        let import = s
            .imports
            .add(PRIMARY, &format!("m{i}"), ImportKind::Memory(m));
        let mem = s.memories.get_mut(m);
        mem.data_segments.clear();
        if let Some(old) = mem.import.replace(import) {
            s.imports.delete(old);
        }
    }
    for (i, &t) in tables.iter().enumerate() {
        let import = s
            .imports
            .add(PRIMARY, &format!("t{i}"), ImportKind::Table(t));
        let tab = s.tables.get_mut(t);
        tab.elem_segments.clear();
        tab.init = None;
        if t == table {
            tab.initial = base + n_stubs;
            tab.maximum = s_max;
        }
        if let Some(old) = tab.import.replace(import) {
            s.imports.delete(old);
        }
    }
    for &i in &shared_globals {
        let g = globals[i];
        let import = s
            .imports
            .add(PRIMARY, &format!("g{i}"), ImportKind::Global(g));
        let glob = s.globals.get_mut(g);
        if let GlobalKind::Import(old) =
            std::mem::replace(&mut glob.kind, GlobalKind::Import(import))
        {
            s.imports.delete(old);
        }
    }
    for &n in &needs {
        let f = s_by_number[&n];
        let name = format!("f{n}");
        let func = s.funcs.get_mut(f);
        let ty = func.ty();
        match &func.kind {
            FunctionKind::Import(imp) => {
                let i = s.imports.get_mut(imp.import);
                i.module = PRIMARY.into();
                i.name = name;
            }
            _ => {
                let import = s.imports.add(PRIMARY, &name, ImportKind::Function(f));
                s.funcs.get_mut(f).kind = FunctionKind::Import(ImportedFunction { import, ty });
            }
        }
    }
    // Every other defined function of the input goes (nothing left refers to them).
    let others: Vec<FunctionId> = s
        .funcs
        .iter_local()
        .map(|(id, _)| id)
        .filter(|f| !cold.contains(&s_numbers[f]))
        .collect();
    for f in others {
        s.funcs.delete(f);
    }
    let (loaded_s, _) = s.add_import_global(PRIMARY, LOADED, ValType::I32, true, false);
    let mut b = FunctionBuilder::new(&mut s.types, &[], &[]);
    b.func_body().i32_const(1).global_set(loaded_s);
    let start = b.finish(vec![], &mut s.funcs);
    s.start = Some(start);
    let elem = s.elements.add(
        ElementKind::Active {
            table,
            offset: ConstExpr::Value(ir::Value::I32(base as i32)),
        },
        ElementItems::Functions(stubbed_numbers.iter().map(|n| s_by_number[n]).collect()),
    );
    s.tables.get_mut(table).elem_segments.insert(elem);
    walrus::passes::gc::run(&mut s);
    let secondary = s.emit_wasm();

    Ok(Split {
        primary,
        secondary,
        hot: hot.len(),
        cold: cold.len(),
        stubs: stubbed.len(),
    })
}
