//! Runs one SQL statement of a walkthrough on SQLite and measures it.
//!
//! This file is not a module of the library (the library does not depend on SQLite): it is
//! included with `#[path]` by the two programs that run SQL, so both run it the same way —
//! `tests/walkthroughs.rs` on the host (rusqlite with a bundled SQLite) and the browser's SQL
//! worker `src/bin/kvlab-sql.rs` (rusqlite on `sqlite-wasm-rs`).

use kvlab::walk::{PlanRow, SqlCounters, SqlOutcome};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, StatementStatus};

/// Runs `sql` (one statement) on `conn`: its rows (or the number of rows it changed), its
/// `EXPLAIN QUERY PLAN` taken before it runs, and its statement counters.
///
/// # Errors
/// SQLite's message when the statement does not compile or fails.
pub fn run_sql(conn: &Connection, sql: &str) -> Result<SqlOutcome, String> {
    let sql = sql.trim();
    let mut out = SqlOutcome {
        plan: query_plan(conn, sql),
        ..SqlOutcome::default()
    };
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    let ncols = stmt.column_count();
    if ncols > 0 {
        out.columns = stmt.column_names().map(str::to_string).collect();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let mut cells = Vec::with_capacity(ncols);
            for i in 0..ncols {
                cells.push(render(row.get_ref(i).map_err(|e| e.to_string())?));
            }
            out.rows.push(cells);
        }
    } else {
        // sqlite3_changes() keeps the count of the last INSERT/UPDATE/DELETE across DDL, so
        // count this statement's changes as the growth of the connection's total.
        let before = conn.total_changes();
        stmt.raw_execute().map_err(|e| e.to_string())?;
        out.changes = Some(conn.total_changes().saturating_sub(before));
    }
    out.counters = SqlCounters {
        fullscan_steps: i64::from(stmt.get_status(StatementStatus::FullscanStep)),
        sorts: i64::from(stmt.get_status(StatementStatus::Sort)),
        autoindex: i64::from(stmt.get_status(StatementStatus::AutoIndex)),
        vm_steps: i64::from(stmt.get_status(StatementStatus::VmStep)),
    };
    Ok(out)
}

/// `EXPLAIN QUERY PLAN` of `sql` as a tree (depth from each row's parent id); empty when
/// SQLite has no plan for it (DDL, plain INSERT) or it does not compile.
fn query_plan(conn: &Connection, sql: &str) -> Vec<PlanRow> {
    let Ok(mut stmt) = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")) else {
        return Vec::new();
    };
    let Ok(rows) = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(3)?,
        ))
    }) else {
        return Vec::new();
    };
    let mut depth_of: Vec<(i64, usize)> = Vec::new();
    let mut plan = Vec::new();
    for (id, parent, detail) in rows.flatten() {
        let depth = depth_of
            .iter()
            .find(|(i, _)| *i == parent)
            .map_or(0, |(_, d)| d + 1);
        depth_of.push((id, depth));
        plan.push(PlanRow { depth, detail });
    }
    plan
}

/// A value as the result grid shows it.
fn render(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => "NULL".to_string(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => {
            if f.fract() == 0.0 && f.abs() < 1e15 {
                format!("{f:.1}")
            } else {
                f.to_string()
            }
        }
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Blob(b) => {
            let mut s = String::from("x'");
            for byte in b {
                s.push_str(&format!("{byte:02x}"));
            }
            s.push('\'');
            s
        }
    }
}
