//! The recap at the end of a walkthrough: what each side had to build for the questions
//! asked, and how each answer's cost grows with the data. Everything is derived from the
//! walkthrough's data, so a new file gets its recap without writing one:
//!
//! - the SQL side built what its steps `CREATE` (indexes, tables), besides what the
//!   `[schema]` already declared;
//! - the KV side built the keys that exist after the last step but were not seeded: the
//!   walkthrough is replayed on a fresh engine ([`super::kv`]) to find them, with the write
//!   commands that maintain each;
//! - the cost of a SQL statement is read from the `plan:` lines of its expected result
//!   ([`SqlGrowth::of`]), the cost of a KV command is the complexity its command table entry
//!   documents ([`super::cost`]).

use std::collections::{BTreeMap, BTreeSet};

use super::cost::kv_cost;
use super::kv::{new_engine, run_kv};
use super::{parse_sql_text, PlanRow, Walkthrough};
use crate::engine::cli::split_args;
use crate::engine::table::{self, Flags};
use crate::engine::Engine;

/// How a SQL statement's work grows with the table, as its query plan shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SqlGrowth {
    /// `SEARCH … (col=?)`: a B-tree descent to one key, O(log N).
    Lookup,
    /// `SEARCH … (col>?)`, or `SCAN … USING INDEX` stopped by a `LIMIT`: a descent, then
    /// M entries in order, O(log N + M).
    Range,
    /// `SCAN t`, or an index walked to its end: every row, O(N).
    Scan,
    /// A scan whose every row runs a search (a join or a correlated subquery), O(N log M).
    ScanSearch,
    /// A scan, then a sort in a temporary B-tree, O(N log N).
    ScanSort,
    /// Two scans nested, O(N·M).
    NestedScan,
}

impl SqlGrowth {
    /// The growth of a statement from its plan rows; `None` when it has no plan (DDL, a
    /// plain `INSERT`) or only constant rows.
    pub fn of(sql: &str, plan: &[PlanRow]) -> Option<SqlGrowth> {
        let limited = sql.to_ascii_uppercase().contains("LIMIT");
        let mut scans = 0;
        let mut searches = 0;
        let mut sorts = false;
        let mut worst = None;
        for p in plan {
            let d = p.detail.as_str();
            let g = if d.starts_with("SCAN CONSTANT ROW") {
                continue;
            } else if d.starts_with("SEARCH") {
                searches += 1;
                if d.contains('>') || d.contains('<') {
                    SqlGrowth::Range
                } else {
                    SqlGrowth::Lookup
                }
            } else if d.starts_with("SCAN") {
                if d.contains(" USING ") && limited {
                    SqlGrowth::Range
                } else {
                    scans += 1;
                    SqlGrowth::Scan
                }
            } else if d.starts_with("USE TEMP B-TREE") {
                sorts = true;
                continue;
            } else {
                continue;
            };
            worst = worst.max(Some(g));
        }
        let worst = worst?;
        Some(if scans >= 2 {
            SqlGrowth::NestedScan
        } else if sorts && worst >= SqlGrowth::Scan {
            SqlGrowth::ScanSort
        } else if scans == 1 && searches >= 1 {
            SqlGrowth::ScanSearch
        } else {
            worst
        })
    }

    /// The big-O of this growth (N rows in the table, M rows returned or in the other
    /// table).
    pub fn big_o(self) -> &'static str {
        match self {
            SqlGrowth::Lookup => "O(log N)",
            SqlGrowth::Range => "O(log N + M)",
            SqlGrowth::Scan => "O(N)",
            SqlGrowth::ScanSearch => "O(N log M)",
            SqlGrowth::ScanSort => "O(N log N)",
            SqlGrowth::NestedScan => "O(N·M)",
        }
    }
}

/// What the SQL side built in one statement of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlBuilt {
    /// 1-based step; 0 for the `[schema]`.
    pub step: usize,
    /// The statement (`CREATE INDEX login_last ON login(last_login_time);`).
    pub sql: String,
}

/// Keys the KV side built: one key, or several that differ in one `:` segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysBuilt {
    /// The key, or a pattern with `*` for the segment that varies (`login:*:id`).
    pub pattern: String,
    /// How many keys it stands for.
    pub count: usize,
    /// Their type (`string`, `list`, `zset`…).
    pub kind: &'static str,
    /// The write commands of the steps that touched them, in upper case, first use first.
    pub writes: Vec<String>,
}

/// One statement's or command's cost in the recap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CostLine {
    /// The statement's first line, or the command's name.
    pub what: String,
    /// Its big-O.
    pub big_o: String,
}

/// The costs of one step on each side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepCost {
    /// 1-based step.
    pub step: usize,
    /// The step's SQL statements that have a plan.
    pub sql: Vec<CostLine>,
    /// The step's KV commands (each name once per step).
    pub kv: Vec<CostLine>,
}

/// The whole recap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recap {
    /// The SQL side's `CREATE INDEX` of the schema (step 0), then every `CREATE` of the
    /// steps.
    pub sql_built: Vec<SqlBuilt>,
    /// The keys not seeded that exist after the last step.
    pub kv_built: Vec<KeysBuilt>,
    /// Per step, what its statements and commands cost.
    pub costs: Vec<StepCost>,
    /// The write commands that rebuild the final KV data in an empty store: the seed, then
    /// every step command whose command table entry is a write (reads are left out, and a
    /// relative `EXPIRE` stays relative, so the data comes out the same on any clock).
    pub kv_writes: Vec<String>,
}

/// The first `O(…)` of a command table complexity (`O(log(N)+M)` of a longer sentence),
/// or the whole text when it has none.
pub fn leading_big_o(complexity: &str) -> String {
    let Some(start) = complexity.find("O(") else {
        return complexity.to_string();
    };
    let mut depth = 0;
    for (i, c) in complexity[start..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return complexity[start..start + i + 1].to_string();
                }
            }
            _ => {}
        }
    }
    complexity[start..].to_string()
}

/// True for the statements that build structure (`CREATE INDEX`, `CREATE TABLE`…).
fn is_create(sql: &str) -> bool {
    sql.trim_start().to_ascii_uppercase().starts_with("CREATE")
}

/// Splits SQL text (a `[schema]`, or what a learner typed in free play) into statements,
/// at each `;` that ends a line.
pub fn sql_statements(schema: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in schema.lines() {
        if line.trim().is_empty() && cur.is_empty() {
            continue;
        }
        if !cur.is_empty() {
            cur.push('\n');
        }
        cur.push_str(line.trim_end());
        if line.trim_end().ends_with(';') {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

fn is_write(command: &str) -> bool {
    split_args(command)
        .and_then(|argv| argv.first().and_then(|n| table::lookup(n)))
        .is_some_and(|c| c.flags.contains(Flags::WRITE))
}

fn keys_of(engine: &Engine) -> BTreeMap<Vec<u8>, &'static str> {
    engine
        .server()
        .dbs
        .first()
        .map(|db| {
            db.iter()
                .map(|(k, e)| (k.to_vec(), e.value.type_name()))
                .collect()
        })
        .unwrap_or_default()
}

/// Groups keys of one type that differ in exactly one `:` segment (`login:ken:id`,
/// `login:joe:id` → `login:*:id`), largest groups first; the rest stay single.
fn group_keys(keys: Vec<(String, &'static str, Vec<String>)>) -> Vec<KeysBuilt> {
    let mut left: Vec<Option<(String, &'static str, Vec<String>)>> =
        keys.into_iter().map(Some).collect();
    let pattern = |key: &str, at: usize| -> Option<String> {
        let parts: Vec<&str> = key.split(':').collect();
        (parts.len() > 1 && at < parts.len()).then(|| {
            parts
                .iter()
                .enumerate()
                .map(|(i, p)| if i == at { "*" } else { p })
                .collect::<Vec<_>>()
                .join(":")
        })
    };
    let mut out = Vec::new();
    for i in 0..left.len() {
        let Some((key, kind, _)) = left[i].clone() else {
            continue;
        };
        // The segment whose replacement groups the most of the remaining keys.
        let segments = key.split(':').count();
        let best = (0..segments)
            .filter_map(|at| {
                let p = pattern(&key, at)?;
                let n = left
                    .iter()
                    .flatten()
                    .filter(|(k, t, _)| *t == kind && pattern(k, at).as_deref() == Some(&p))
                    .count();
                Some((n, at, p))
            })
            .max_by_key(|(n, at, _)| (*n, std::cmp::Reverse(*at)));
        match best {
            Some((n, at, p)) if n >= 2 => {
                let mut writes: Vec<String> = Vec::new();
                let mut count = 0;
                for slot in left.iter_mut() {
                    if let Some((k, t, w)) = slot {
                        if *t == kind && pattern(k, at).as_deref() == Some(&p) {
                            for c in w.iter() {
                                if !writes.contains(c) {
                                    writes.push(c.clone());
                                }
                            }
                            count += 1;
                            *slot = None;
                        }
                    }
                }
                out.push(KeysBuilt {
                    pattern: p,
                    count,
                    kind,
                    writes,
                });
            }
            _ => {
                if let Some((key, kind, writes)) = left[i].take() {
                    out.push(KeysBuilt {
                        pattern: key,
                        count: 1,
                        kind,
                        writes,
                    });
                }
            }
        }
    }
    out
}

impl Recap {
    /// The recap of `w`, replaying its KV side on a fresh engine. **O(size of the
    /// walkthrough).**
    pub fn of(w: &Walkthrough) -> Recap {
        let (mut engine, client) = new_engine();
        let mut kv_writes = Vec::new();
        for c in &w.seed {
            run_kv(&mut engine, client, &c.command);
            kv_writes.push(c.command.clone());
        }
        let seeded = keys_of(&engine);
        let mut writers: BTreeMap<Vec<u8>, Vec<String>> = BTreeMap::new();
        let mut costs = Vec::new();
        let mut sql_built: Vec<SqlBuilt> = sql_statements(&w.schema)
            .into_iter()
            .filter(|s| s.to_ascii_uppercase().contains("INDEX") && is_create(s))
            .map(|sql| SqlBuilt { step: 0, sql })
            .collect();
        for (n, step) in w.steps.iter().enumerate() {
            let mut cost = StepCost {
                step: n + 1,
                sql: Vec::new(),
                kv: Vec::new(),
            };
            for c in &step.sql {
                if is_create(&c.sql) {
                    sql_built.push(SqlBuilt {
                        step: n + 1,
                        sql: c.sql.clone(),
                    });
                }
                let plan = parse_sql_text(&c.expect).plan;
                if let Some(g) = SqlGrowth::of(&c.sql, &plan) {
                    cost.sql.push(CostLine {
                        what: c.sql.lines().next().unwrap_or("").to_string(),
                        big_o: g.big_o().to_string(),
                    });
                }
            }
            for c in &step.kv {
                run_kv(&mut engine, client, &c.command);
                let argv = split_args(&c.command).unwrap_or_default();
                let k = kv_cost(&argv);
                if is_write(&c.command) {
                    kv_writes.push(c.command.clone());
                    for key in &k.keys {
                        let w = writers.entry(key.clone()).or_default();
                        if !w.contains(&k.name) {
                            w.push(k.name.clone());
                        }
                    }
                }
                if !k.complexity.is_empty() && !cost.kv.iter().any(|l| l.what == k.name) {
                    cost.kv.push(CostLine {
                        what: k.name.clone(),
                        big_o: leading_big_o(&k.complexity),
                    });
                }
            }
            costs.push(cost);
        }
        let seeded_names: BTreeSet<&Vec<u8>> = seeded.keys().collect();
        let fresh: Vec<(String, &'static str, Vec<String>)> = keys_of(&engine)
            .into_iter()
            .filter(|(k, _)| !seeded_names.contains(k))
            .map(|(k, kind)| {
                let w = writers.get(&k).cloned().unwrap_or_default();
                (String::from_utf8_lossy(&k).into_owned(), kind, w)
            })
            .collect();
        Recap {
            sql_built,
            kv_built: group_keys(fresh),
            costs,
            kv_writes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(lines: &[&str]) -> Vec<PlanRow> {
        lines
            .iter()
            .map(|l| {
                let d = l.trim_start();
                PlanRow {
                    depth: (l.len() - d.len()) / 2,
                    detail: d.to_string(),
                }
            })
            .collect()
    }

    #[test]
    fn growth_is_read_from_the_plan() {
        let g = |sql: &str, p: &[&str]| SqlGrowth::of(sql, &plan(p));
        assert_eq!(
            g(
                "SELECT 1;",
                &["SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"]
            ),
            Some(SqlGrowth::Lookup)
        );
        assert_eq!(
            g("SELECT 1;", &["SEARCH c USING INDEX c_exp (expires_at<?)"]),
            Some(SqlGrowth::Range)
        );
        assert_eq!(g("SELECT 1;", &["SCAN t"]), Some(SqlGrowth::Scan));
        assert_eq!(
            g(
                "SELECT … ORDER BY a LIMIT 2;",
                &["SCAN t", "USE TEMP B-TREE FOR ORDER BY"]
            ),
            Some(SqlGrowth::ScanSort)
        );
        assert_eq!(
            g("… LIMIT 2;", &["SCAN t USING INDEX t_a"]),
            Some(SqlGrowth::Range)
        );
        assert_eq!(
            g(
                "SELECT …;",
                &["SCAN a", "CORRELATED SCALAR SUBQUERY 1", "  SEARCH b (x=?)"]
            ),
            Some(SqlGrowth::ScanSearch)
        );
        assert_eq!(
            g("SELECT 1;", &["SCAN a", "SCAN b"]),
            Some(SqlGrowth::NestedScan)
        );
        assert_eq!(g("CREATE INDEX i ON t(a);", &[]), None);
        assert_eq!(g("SELECT 1;", &["SCAN CONSTANT ROW"]), None);
    }

    #[test]
    fn leading_big_o_keeps_nested_parentheses() {
        assert_eq!(
            leading_big_o("O(log(N)+M) with N being the number of elements"),
            "O(log(N)+M)"
        );
        assert_eq!(leading_big_o("O(1)"), "O(1)");
        assert_eq!(leading_big_o("depends"), "depends");
    }

    #[test]
    fn keys_differing_in_one_segment_are_grouped() {
        let k = |s: &str, t: &'static str| (s.to_string(), t, vec!["SET".to_string()]);
        let g = group_keys(vec![
            k("login:Joe:id", "string"),
            k("login:ken:id", "string"),
            k("login:last", "list"),
        ]);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].pattern, "login:*:id");
        assert_eq!(g[0].count, 2);
        assert_eq!(g[1].pattern, "login:last");
        assert_eq!(g[1].count, 1);
    }
}
