//! How a walkthrough step is drawn: its SQL and its KV commands side by side in one grid
//! row (so the two blocks of a step start level), each statement or command shown before it
//! runs and its result under it once it has; the recap at the end; and the walkthrough
//! engine's keys as a tree.

use yew::prelude::*;

use super::run::{KvRun, SqlRun};
use crate::app::route::Route;
use crate::app::share::Shared;
use crate::engine::cli::split_args;
use crate::engine::Engine;
use crate::ui::console;
use crate::ui::i18n::{Lang, WalkText};
use crate::walk::cost::kv_cost;
use crate::walk::recap::{CostLine, Recap};
use crate::walk::{display_zh, parse_sql_text, SqlOutcome, Walkthrough};

/// A walkthrough text as shown in `lang` (see [`display_zh`]).
pub fn show(lang: Lang, text: &str) -> String {
    match lang {
        Lang::En => text.to_string(),
        Lang::Zh => display_zh(text),
    }
}

pub fn tag(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Zh => "zh",
    }
}

/// A result grid. Each cell carries its column's name (`data-col`), so that on a phone a
/// table of more than two columns is shown as one card per row instead of scrolling
/// sideways (www/walkthrough.css).
pub fn grid(o: &SqlOutcome) -> Html {
    if o.columns.is_empty() {
        return html! {};
    }
    let wide = o.columns.len() > 2;
    html! {
        <table class={classes!("walk-grid", wide.then_some("wide"))}>
            <thead><tr>{ for o.columns.iter().map(|c| html! { <th scope="col">{ c }</th> }) }</tr></thead>
            <tbody>{ for o.rows.iter().map(|row| html! {
                <tr>{ for row.iter().enumerate().map(|(i, c)| html! {
                    <td data-col={o.columns.get(i).cloned().unwrap_or_default()}>{ c }</td>
                }) }</tr>
            }) }</tbody>
        </table>
    }
}

/// One SQL statement: its text, then (once run) its result, plan and counters.
fn sql_item(sql: &str, run: Option<&SqlRun>, lang: Lang) -> Html {
    let Some(q) = run else {
        return html! {
            <div class="walk-sql-run pending">
                <pre class="walk-stmt">{ format!("sql> {sql}") }</pre>
            </div>
        };
    };
    let o = parse_sql_text(&q.reply.text);
    let ok = q.expect.as_ref().is_none_or(|e| *e == q.reply.text);
    let error = q.reply.text.strip_prefix("error: ");
    let plan = if o.plan.is_empty() {
        html! {}
    } else {
        html! {
            <div class="walk-plan" role="group" aria-label={lang.walk().query_plan}>
                <span class="walk-plan-h">{ lang.walk().query_plan }</span>
                <pre>{ for o.plan.iter().map(|p| format!("{}{}\n", "   ".repeat(p.depth), p.detail)) }</pre>
            </div>
        }
    };
    html! {
        <div class={classes!("walk-sql-run", (!ok).then_some("mismatch"))}>
            <pre class="walk-stmt">{ format!("sql> {}", q.sql) }</pre>
            if let Some(e) = error { <pre class="walk-reply error">{ e }</pre> }
            { grid(&o) }
            if let Some(n) = o.changes { <p class="walk-changes">{ WalkText::RowsChanged(n).text(lang) }</p> }
            { plan }
            <p class="walk-cost">
                { format!("{}{c}{} · {}{c}{} · {}{c}{}", lang.walk().full_scan_steps, q.reply.fullscan, lang.walk().sorts, q.reply.sort, lang.walk().vm_steps, q.reply.vm, c = lang.strings().colon) }
            </p>
            if !ok { <pre class="walk-expected">{ lang.walk().file_expected }{ q.expect.clone().unwrap_or_default() }</pre> }
        </div>
    }
}

/// One KV command: its line with its documented complexity beside it, then (once run) its
/// reply.
fn kv_item(command: &str, run: Option<&KvRun>, lang: Lang) -> Html {
    // Read now, not when it ran: the table's texts may have arrived since (see
    // `engine::table::docs`).
    let cost = kv_cost(&split_args(command).unwrap_or_default());
    let complexity = if cost.complexity.is_empty() {
        "?".to_string()
    } else {
        console::complexity_text(&cost.complexity, lang)
    };
    let ok = run.is_none_or(|k| k.expect.as_ref().is_none_or(|e| *e == k.reply));
    html! {
        <div class={classes!("walk-kv-run", (!ok).then_some("mismatch"), run.is_none().then_some("pending"))}>
            <div class="walk-cmd-line">
                <pre class="walk-cmd"><span class="prompt">{ "127.0.0.1:6379> " }</span>{ command }</pre>
                <p class="walk-cost walk-complexity">{ format!("{} · {complexity}", cost.name) }</p>
            </div>
            if let Some(k) = run {
                <pre class={classes!("walk-reply", k.reply.starts_with("(error)").then_some("error"))}>{ &k.reply }</pre>
                if !ok { <pre class="walk-expected">{ lang.walk().file_expected }{ k.expect.clone().unwrap_or_default() }</pre> }
            }
        </div>
    }
}

/// The two sides of one step (or of a free-play run, `n` = 0): SQL on the left, KV on the
/// right, in one grid row. `sql` and `kv` are the statements and commands with their run,
/// if any.
pub fn pair(
    n: usize,
    sql: &[(String, Option<&SqlRun>)],
    kv: &[(String, Option<&KvRun>)],
    ran: bool,
    lang: Lang,
) -> Html {
    let s = lang.walk();
    let label = WalkText::RunLabel(n).text(lang);
    let mut keys: Vec<Vec<u8>> = kv
        .iter()
        .filter_map(|(_, r)| r.as_ref())
        .flat_map(|k| k.cost.keys.iter().cloned())
        .collect();
    crate::sorting::sort(&mut keys);
    keys.dedup();
    html! {
        <div class="walk-pair" data-step={n.to_string()}>
            <section class="walk-sql walk-run" data-step={n.to_string()} aria-label={format!("SQL · {label}")}>
                <h4>{ s.sql_heading }{ " · " }{ &label }</h4>
                if sql.is_empty() { <p class="walk-muted">{ s.no_sql }</p> }
                { for sql.iter().map(|(q, r)| sql_item(q, *r, lang)) }
                if !ran && !sql.is_empty() { <p class="walk-muted walk-not-run">{ s.not_run }</p> }
            </section>
            <section class="walk-kv walk-run walk-console" data-step={n.to_string()} aria-label={format!("KV · {label}")}>
                <h4>{ s.kv_heading }{ " · " }{ &label }</h4>
                if kv.is_empty() { <p class="walk-muted">{ s.no_kv }</p> }
                { for kv.iter().map(|(c, r)| kv_item(c, *r, lang)) }
                if ran && !kv.is_empty() {
                    <p class="walk-cost walk-total">
                        { format!("{}{c}{} · {}{c}{}", s.commands, kv.len(), s.keys_touched, keys.len(), c = lang.strings().colon) }
                    </p>
                }
                if !ran && !kv.is_empty() && sql.is_empty() { <p class="walk-muted walk-not-run">{ s.not_run }</p> }
            </section>
        </div>
    }
}

/// The setup: the `[schema]` (tables and seed rows) beside the `[seed]` commands.
pub fn setup(w: &Walkthrough, open: bool, lang: Lang) -> Html {
    let s = lang.walk();
    let seed: String = w
        .seed
        .iter()
        .map(|c| c.command.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    html! {
        <details class="walk-setup" {open}>
            <summary>{ s.setup }</summary>
            <div class="walk-pair">
                <section class="walk-sql walk-schema" aria-label={s.schema}>
                    <h4>{ s.schema }</h4>
                    <pre class="walk-stmt">{ &w.schema }</pre>
                </section>
                <section class="walk-kv walk-seed" aria-label={s.seeded_keys}>
                    <h4>{ s.seeded_keys }</h4>
                    <pre class="walk-cmd">{ seed }</pre>
                </section>
            </div>
        </details>
    }
}

/// The link that opens the workbench with the walkthrough's final KV data: a share link
/// (`#/share?s=…`, see [`crate::app::share`]) whose dataset is the write commands of the seed
/// and the steps, in a workspace named after the walkthrough. A new query string makes it
/// a fresh page load, which is when the app reads a share link.
pub fn try_link(w: &Walkthrough, r: &Recap) -> String {
    let shared = Shared {
        dataset: r.kv_writes.clone(),
        commands: Vec::new(),
    };
    format!(
        "{}?ws=walk-{}#{}",
        crate::ui::services::location::path(),
        w.id,
        Route::Share(Ok(shared)).fragment()
    )
}

/// One cell of the cost table: each statement or command with its big-O, or a dash when
/// the step has none on this side.
fn cost_list(lines: &[CostLine]) -> Html {
    if lines.is_empty() {
        return html! { <span class="walk-muted">{ "—" }</span> };
    }
    html! {
        <ul>{ for lines.iter().map(|x| html! { <li><strong>{ &x.big_o }</strong>{ " " }<code>{ &x.what }</code></li> }) }</ul>
    }
}

/// The recap: what each side built, each step's cost on each side as the data grows, and
/// the link to the workbench.
pub fn recap(w: &Walkthrough, r: &Recap, lang: Lang, show: impl Fn(&str) -> String) -> Html {
    let s = lang.walk();
    let l = if lang == Lang::Zh { "zh" } else { "en" };
    let step_at = |n: usize| WalkText::BuiltAt(n).text(lang);
    let sql_built = if r.sql_built.is_empty() {
        html! { <p class="walk-muted">{ s.sql_built_none }</p> }
    } else {
        html! {
            <ul class="walk-built">
                { for r.sql_built.iter().map(|b| html! {
                    <li><pre class="walk-stmt">{ &b.sql }</pre><span class="walk-muted">{ step_at(b.step) }</span></li>
                }) }
            </ul>
        }
    };
    let kv_built = if r.kv_built.is_empty() {
        html! { <p class="walk-muted">{ s.kv_built_none }</p> }
    } else {
        html! {
            <ul class="walk-built">
                { for r.kv_built.iter().map(|k| html! {
                    <li>
                        <code class="walk-key">{ &k.pattern }</code>
                        { if k.count > 1 { format!(" × {} {}", k.count, s.keys) } else { String::new() } }
                        <span class="walk-muted">{ format!(" · {} · {}{}", k.kind, s.kept_by, k.writes.join(", ")) }</span>
                    </li>
                }) }
            </ul>
        }
    };
    let rows = r.costs.iter().map(|c| {
        let title = w
            .steps
            .get(c.step - 1)
            .map(|st| show(st.title.get(l)))
            .unwrap_or_default();
        html! {
            <tr>
                <td data-col={s.step}>{ format!("{}. {title}", c.step) }</td>
                <td data-col={s.cost_sql}>
                    { cost_list(&c.sql) }
                </td>
                <td data-col={s.cost_kv}>
                    { cost_list(&c.kv) }
                </td>
            </tr>
        }
    });
    let link = try_link(w, r);
    html! {
        <section class="walk-recap" aria-labelledby="walk-recap-h">
            <h2 id="walk-recap-h">{ s.recap }</h2>
            <div class="walk-pair">
                <section class="walk-sql walk-recap-sql">
                    <h4>{ s.sql_built }</h4>
                    { sql_built }
                </section>
                <section class="walk-kv walk-recap-kv">
                    <h4>{ s.kv_built }</h4>
                    { kv_built }
                </section>
            </div>
            <h3>{ s.cost_growth }</h3>
            <table class="walk-grid wide walk-costs">
                <thead><tr><th scope="col">{ s.step }</th><th scope="col">{ s.cost_sql }</th><th scope="col">{ s.cost_kv }</th></tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            <p class="walk-muted">{ s.cost_note }</p>
            <p class="walk-try">
                <a class="walk-try-link" href={link} target="_blank" rel="noopener">{ s.try_it }</a>
                <span class="walk-muted">{ format!(" {} {}", r.kv_writes.len(), s.try_note) }</span>
            </p>
        </section>
    }
}

/// The walkthrough engine's keys grouped by `:` into a tree.
pub fn keyspace_tree(engine: &Engine, lang: Lang) -> Html {
    let mut keys: Vec<(String, &'static str)> = engine
        .server()
        .dbs
        .first()
        .map(|db| {
            db.iter()
                .take(500)
                .map(|(k, e)| (String::from_utf8_lossy(k).into_owned(), e.value.type_name()))
                .collect()
        })
        .unwrap_or_default();
    crate::sorting::sort(&mut keys);
    let ws = lang.walk();
    fn node(keys: &[(String, &'static str)], depth: usize) -> Html {
        // Group by the segment at `depth`.
        let mut out = Vec::new();
        let mut i = 0;
        while i < keys.len() {
            let parts: Vec<&str> = keys[i].0.split(':').collect();
            if parts.len() <= depth + 1 {
                out.push(html! { <li class="leaf"><span class="key">{ &keys[i].0 }</span>{ " " }<span class="type">{ keys[i].1 }</span></li> });
                i += 1;
                continue;
            }
            let seg = parts[depth].to_string();
            let mut j = i;
            while j < keys.len() {
                let p: Vec<&str> = keys[j].0.split(':').collect();
                if p.len() > depth + 1 && p[depth] == seg {
                    j += 1;
                } else {
                    break;
                }
            }
            out.push(html! {
                <li><details open={depth < 2}><summary>{ format!("{seg}: ({})", j - i) }</summary><ul>{ node(&keys[i..j], depth + 1) }</ul></details></li>
            });
            i = j;
        }
        out.into_iter().collect::<Html>()
    }
    html! {
        <section class="walk-tree" aria-label={ws.keyspace}>
            <h4>{ ws.keyspace_grouped }</h4>
            <ul>{ node(&keys, 0) }</ul>
        </section>
    }
}
