//! The SQL side's table browser: every table of the walkthrough's SQLite database with its
//! columns, its indexes and its first rows, as the keyspace tree shows the KV side's keys.
//! Read from the real database in the SQL worker (`sqlite_master`, `pragma_table_info`,
//! `pragma_index_list`, `pragma_index_info`, `SELECT`), after the schema and after every run.

use yew::prelude::*;

use super::sql::SqlWorker;
use super::view::grid;
use crate::ui::i18n::Lang;
use crate::walk::{parse_sql_text, SqlOutcome};

/// The most rows shown per table.
const ROWS: usize = 20;

/// One index of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexInfo {
    /// Its name (`login_last`, or `sqlite_autoindex_…` for a UNIQUE constraint).
    pub name: String,
    /// A unique index.
    pub unique: bool,
    /// The indexed columns, in order.
    pub columns: Vec<String>,
}

/// One table as the browser shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    /// Its name.
    pub name: String,
    /// Its columns: name, declared type, part of the primary key.
    pub columns: Vec<(String, String, bool)>,
    /// Its indexes.
    pub indexes: Vec<IndexInfo>,
    /// Its first [`ROWS`] rows.
    pub rows: SqlOutcome,
    /// How many rows it has.
    pub count: usize,
}

/// `name` as a SQL string literal.
fn literal(name: &str) -> String {
    format!("'{}'", name.replace('\'', "''"))
}

/// `name` as a quoted SQL identifier.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

async fn query(w: &SqlWorker, sql: &str) -> SqlOutcome {
    let reply = w.exec(sql).await;
    parse_sql_text(&reply.text)
}

/// Reads every table of the worker's database.
pub async fn read_tables(w: &SqlWorker) -> Vec<TableInfo> {
    let names = query(
        w,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid;",
    )
    .await;
    let mut out = Vec::new();
    for row in names.rows {
        let Some(name) = row.into_iter().next() else {
            continue;
        };
        let cols = query(
            w,
            &format!(
                "SELECT name, type, pk FROM pragma_table_info({}) ORDER BY cid;",
                literal(&name)
            ),
        )
        .await;
        let columns = cols
            .rows
            .into_iter()
            .map(|r| {
                let pk = r.get(2).is_some_and(|p| p != "0");
                let mut r = r.into_iter();
                (
                    r.next().unwrap_or_default(),
                    r.next().unwrap_or_default(),
                    pk,
                )
            })
            .collect();
        let idx = query(
            w,
            &format!(
                "SELECT il.name, il.\"unique\", group_concat(ii.name, ', ') FROM pragma_index_list({0}) AS il, \
                 pragma_index_info(il.name) AS ii GROUP BY il.name ORDER BY il.name;",
                literal(&name)
            ),
        )
        .await;
        let indexes = idx
            .rows
            .into_iter()
            .map(|r| IndexInfo {
                name: r.first().cloned().unwrap_or_default(),
                unique: r.get(1).is_some_and(|u| u == "1"),
                columns: r
                    .get(2)
                    .map(|c| c.split(", ").map(str::to_string).collect())
                    .unwrap_or_default(),
            })
            .collect();
        let count = query(w, &format!("SELECT count(*) FROM {};", ident(&name)))
            .await
            .rows
            .first()
            .and_then(|r| r.first())
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let mut rows = query(w, &format!("SELECT * FROM {} LIMIT {ROWS};", ident(&name))).await;
        rows.plan.clear();
        out.push(TableInfo {
            name,
            columns,
            indexes,
            rows,
            count,
        });
    }
    out
}

/// The browser: one collapsible entry per table.
pub fn tables_view(tables: &[TableInfo], lang: Lang) -> Html {
    let s = lang.walk();
    let c = lang.strings().colon;
    let items = tables.iter().enumerate().map(|(i, t)| {
        let columns = t
            .columns
            .iter()
            .map(|(n, ty, pk)| {
                let mut out = n.clone();
                if !ty.is_empty() {
                    out.push(' ');
                    out.push_str(ty);
                }
                if *pk {
                    out.push_str(&format!(" ({})", s.primary_key));
                }
                out
            })
            .collect::<Vec<_>>()
            .join(", ");
        let indexes = if t.indexes.is_empty() {
            html! { <span class="walk-muted">{ s.no_index }</span> }
        } else {
            let items = t
                .indexes
                .iter()
                .map(|ix| {
                    html! {
                        <li class="walk-index">
                            <code>{ &ix.name }</code>{ format!(" ({})", ix.columns.join(", ")) }
                            { if ix.unique { format!(" · {}", s.unique) } else { String::new() } }
                        </li>
                    }
                })
                .collect::<Html>();
            html! { <ul>{ items }</ul> }
        };
        let shown = t.rows.rows.len();
        html! {
            <li class="walk-table" data-table={t.name.clone()}>
                <details open={i == 0}>
                    <summary><code>{ &t.name }</code>{ format!(" ({} {})", t.count, s.rows) }</summary>
                    <p class="walk-table-cols">{ format!("{}{c}", s.columns) }{ columns }</p>
                    <div class="walk-table-idx">{ format!("{}{c}", s.indexes) }{ indexes }</div>
                    { grid(&t.rows) }
                    if shown < t.count { <p class="walk-muted">{ format!("{} {shown} / {}", s.showing_first, t.count) }</p> }
                </details>
            </li>
        }
    });
    html! {
        <section class="walk-tables" aria-label={s.tables}>
            <h4>{ s.tables }</h4>
            <ul>{ for items }</ul>
        </section>
    }
}
