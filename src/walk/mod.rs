//! Walkthroughs: one problem solved twice, in SQL and in key-value commands, side by side.
//!
//! A walkthrough is a text file in `www/walkthroughs/` (the format is documented in
//! `docs/walkthroughs.md`). This module is its model: [`parse`] turns the text into a
//! [`Walkthrough`] and [`Walkthrough::validate`] checks that it is complete, both with errors
//! ([`WalkError`]) that name the file, the line and the step, and say what is wrong as a
//! [`WalkMsg`] that the app renders in its language ([`crate::i18n`]). It does no I/O and
//! has no dependencies, so the same code serves the host check (`tests/walkthroughs.rs`),
//! the SQL worker and the web app.
//!
//! The expected results in a file are plain text, compared line for line:
//! - a KV reply is what `redis-cli` prints ([`crate::engine::cli::format_reply`]);
//! - a SQL result is rendered by [`SqlOutcome::to_text`]: a `| col | col |` header, one
//!   `| v | v |` line per row (or `changes: N` for a statement that returns no rows), then
//!   one `plan:` line per row of `EXPLAIN QUERY PLAN`, indented two spaces per level.
//!
//! ```
//! let text = "id: hello\ntitle.en: Hello\ntitle.zh: 你好\n\n[step]\ntitle.en: Read\n\
//!             title.zh: 读\nen: Read it.\nzh: 读出来。\nkv> GET greeting\n(nil)\n";
//! let w = kvlab::walk::parse("hello.walk", text).unwrap();
//! w.validate("hello.walk").unwrap();
//! assert_eq!(w.steps[0].kv[0].expect, "(nil)");
//! ```

pub mod cost;
pub mod kv;
pub mod recap;

use std::fmt;

pub use crate::i18n::WalkMsg;
use crate::i18n::{Lang, WalkText};

/// A text in both of the app's languages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
    /// English.
    pub en: String,
    /// Simplified Chinese.
    pub zh: String,
}

impl Text {
    /// The text in `lang` (`"zh"` for Chinese, anything else for English); falls back to the
    /// other language when this one is empty.
    pub fn get(&self, lang: &str) -> &str {
        let (first, second) = if lang.starts_with("zh") {
            (&self.zh, &self.en)
        } else {
            (&self.en, &self.zh)
        };
        if first.is_empty() {
            second
        } else {
            first
        }
    }
}

/// True for the characters of CJK text: ideographs, kana, and full-width punctuation
/// (`，。：“”…`).
fn is_cjk(c: char) -> bool {
    ('\u{2e80}'..='\u{9fff}').contains(&c)
        || ('\u{3000}'..='\u{303f}').contains(&c)
        || ('\u{ff00}'..='\u{ffef}').contains(&c)
        || matches!(c, '“' | '”' | '‘' | '’' | '…' | '—')
}

/// True for full-width punctuation, which carries its own spacing.
fn is_cjk_punct(c: char) -> bool {
    ('\u{3000}'..='\u{303f}').contains(&c)
        || ('\u{ff00}'..='\u{ff0f}').contains(&c)
        || ('\u{ff1a}'..='\u{ff20}').contains(&c)
        || ('\u{ff3b}'..='\u{ff40}').contains(&c)
        || ('\u{ff5b}'..='\u{ff65}').contains(&c)
        || matches!(c, '“' | '”' | '‘' | '’')
}

/// A Chinese walkthrough text as shown (English is shown as written). A file's continuation lines are joined with a space, which
/// Chinese does not put between two CJK characters (`问题， 看看` → `问题，看看`) nor
/// beside full-width punctuation, which has its own spacing (`SQLite， SQL` →
/// `SQLite，SQL`). Spaces between CJK and Latin text (`用 SQL 和`) stay, and so do those
/// around `…` and `—`, which English-style text in a Chinese line uses (`ZRANGE … REV`).
///
/// ```
/// assert_eq!(kvlab::walk::display_zh("问题， 看看 SQL 和 键值。 Redis"), "问题，看看 SQL 和键值。Redis");
/// ```
pub fn display_zh(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let drop = c == ' '
            && match (prev, next) {
                (Some(p), Some(n)) => {
                    (is_cjk(p) && is_cjk(n)) || is_cjk_punct(p) || is_cjk_punct(n)
                }
                _ => false,
            };
        if !drop {
            out.push(c);
        }
    }
    out
}

/// One SQL statement of a step and its expected result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlCheck {
    /// The statement, as written (one statement; may span lines).
    pub sql: String,
    /// The expected result, as [`SqlOutcome::to_text`] renders it.
    pub expect: String,
    /// 1-based line of the `sql>` line.
    pub line: usize,
    /// 0-based line range of the expected lines (for rewriting a file).
    pub expect_lines: (usize, usize),
}

/// One KV command of a step (or of the seed) and its expected reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvCheck {
    /// The command line, split as redis-cli splits it.
    pub command: String,
    /// The expected reply as redis-cli prints it (empty for seed commands).
    pub expect: String,
    /// 1-based line of the `kv>` line.
    pub line: usize,
    /// 0-based line range of the expected lines (for rewriting a file).
    pub expect_lines: (usize, usize),
}

/// One step: narration plus what runs on each side.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Step {
    /// Short title.
    pub title: Text,
    /// Narration; paragraphs separated by `\n\n`.
    pub say: Text,
    /// SQL statements, run in order on the step's SQL connection.
    pub sql: Vec<SqlCheck>,
    /// KV commands, run in order on the walkthrough's engine.
    pub kv: Vec<KvCheck>,
    /// 1-based line of the `[step]` header.
    pub line: usize,
}

/// A whole walkthrough.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walkthrough {
    /// Identifier used in links (`#/walk/<id>/<step>`): lowercase letters, digits, `-`.
    pub id: String,
    /// Title.
    pub title: Text,
    /// Introduction shown before the first step.
    pub intro: Text,
    /// Words to search by, besides the title.
    pub tags: Vec<String>,
    /// SQL run once before the first step: tables and seed rows.
    pub schema: String,
    /// KV commands run once before the first step (replies not checked, errors are).
    pub seed: Vec<KvCheck>,
    /// The steps.
    pub steps: Vec<Step>,
}

/// What went wrong in a walkthrough file, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkError {
    /// The file's name as given to [`parse`].
    pub file: String,
    /// 1-based line, 0 when the error is about the whole file.
    pub line: usize,
    /// 1-based step number, when the error is inside a step.
    pub step: Option<usize>,
    /// What is wrong, as a message the app renders in its language.
    pub message: WalkMsg,
}

impl WalkError {
    /// The error in `lang`, naming the file, line and step: `t.walk:23: step 1: …` in
    /// English.
    pub fn text(&self, lang: Lang) -> String {
        WalkText::BadFile {
            file: &self.file,
            line: self.line,
            step: self.step,
            msg: &self.message,
        }
        .text(lang)
    }
}

/// The English text ([`WalkError::text`]).
impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(Lang::En))
    }
}

impl std::error::Error for WalkError {}

/// Where the parser is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Header,
    Schema,
    Seed,
    Step,
}

/// True for a line that starts something new (so it ends a block of expected lines).
fn is_directive(line: &str) -> bool {
    line.is_empty()
        || line.starts_with('#')
        || line.starts_with('[')
        || line.starts_with("sql>")
        || line.starts_with("kv>")
        || line.starts_with("en:")
        || line.starts_with("zh:")
        || line.starts_with("title.")
}

/// Appends one narration line: consecutive lines join with a space, an empty line starts a
/// new paragraph.
fn push_prose(to: &mut String, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        if !to.is_empty() && !to.ends_with("\n\n") {
            to.push_str("\n\n");
        }
    } else {
        if !to.is_empty() && !to.ends_with("\n\n") {
            to.push(' ');
        }
        to.push_str(text);
    }
}

/// Parses a walkthrough file. `file` is only used in error messages.
///
/// # Errors
/// A [`WalkError`] naming the file, line and step for: an unknown line, a header field
/// after the first section, an unknown section, an unterminated SQL statement.
pub fn parse(file: &str, text: &str) -> Result<Walkthrough, WalkError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut w = Walkthrough::default();
    let mut section = Section::Header;
    let mut i = 0;
    let err = |line: usize, step: Option<usize>, message: WalkMsg| WalkError {
        file: file.to_string(),
        line,
        step,
        message,
    };
    while i < lines.len() {
        let raw = lines[i].trim_end();
        let lineno = i + 1;
        i += 1;
        let step_no = if section == Section::Step {
            Some(w.steps.len())
        } else {
            None
        };
        if raw.starts_with('#') || (raw.is_empty() && section != Section::Schema) {
            continue;
        }
        if let Some(name) = raw.strip_prefix('[') {
            section = match name.trim_end_matches(']').trim() {
                "schema" => Section::Schema,
                "seed" => Section::Seed,
                "step" => {
                    w.steps.push(Step {
                        line: lineno,
                        ..Step::default()
                    });
                    Section::Step
                }
                other => {
                    return Err(err(
                        lineno,
                        step_no,
                        WalkMsg::UnknownSection(other.to_string()),
                    ))
                }
            };
            continue;
        }
        match section {
            Section::Header => {
                let Some((key, value)) = raw.split_once(':') else {
                    return Err(err(lineno, None, WalkMsg::HeaderNotField(raw.to_string())));
                };
                let value = value.trim();
                match key.trim() {
                    "id" => w.id = value.to_string(),
                    "title.en" => w.title.en = value.to_string(),
                    "title.zh" => w.title.zh = value.to_string(),
                    "intro.en" => push_prose(&mut w.intro.en, value),
                    "intro.zh" => push_prose(&mut w.intro.zh, value),
                    "tags" => w.tags.extend(value.split_whitespace().map(str::to_string)),
                    other => {
                        return Err(err(
                            lineno,
                            None,
                            WalkMsg::UnknownHeaderField(other.to_string()),
                        ))
                    }
                }
            }
            Section::Schema => {
                w.schema.push_str(raw);
                w.schema.push('\n');
            }
            Section::Seed => {
                let command = raw.strip_prefix("kv>").unwrap_or(raw).trim();
                w.seed.push(KvCheck {
                    command: command.to_string(),
                    expect: String::new(),
                    line: lineno,
                    expect_lines: (i, i),
                });
            }
            Section::Step => {
                let Some(step) = w.steps.last_mut() else {
                    continue;
                };
                if let Some(rest) = raw.strip_prefix("sql>") {
                    let mut sql = rest.trim().to_string();
                    while !sql.ends_with(';') {
                        let Some(next) = lines.get(i) else {
                            return Err(err(lineno, step_no, WalkMsg::SqlUnterminated));
                        };
                        if is_directive(next.trim_end()) {
                            return Err(err(lineno, step_no, WalkMsg::SqlUnterminatedBeforeNext));
                        }
                        sql.push('\n');
                        sql.push_str(next.trim_end());
                        i += 1;
                    }
                    let (expect, range) = expected_block(&lines, &mut i);
                    step.sql.push(SqlCheck {
                        sql,
                        expect,
                        line: lineno,
                        expect_lines: range,
                    });
                } else if let Some(rest) = raw.strip_prefix("kv>") {
                    let (expect, range) = expected_block(&lines, &mut i);
                    step.kv.push(KvCheck {
                        command: rest.trim().to_string(),
                        expect,
                        line: lineno,
                        expect_lines: range,
                    });
                } else if let Some(rest) = raw.strip_prefix("en:") {
                    push_prose(&mut step.say.en, rest);
                } else if let Some(rest) = raw.strip_prefix("zh:") {
                    push_prose(&mut step.say.zh, rest);
                } else if let Some(rest) = raw.strip_prefix("title.en:") {
                    step.title.en = rest.trim().to_string();
                } else if let Some(rest) = raw.strip_prefix("title.zh:") {
                    step.title.zh = rest.trim().to_string();
                } else {
                    return Err(err(lineno, step_no, WalkMsg::UnknownLine(raw.to_string())));
                }
            }
        }
    }
    w.schema = w.schema.trim().to_string();
    for s in &mut w.steps {
        s.say.en = s.say.en.trim_end().to_string();
        s.say.zh = s.say.zh.trim_end().to_string();
    }
    Ok(w)
}

/// Reads the expected lines starting at `lines[*i]` up to the next directive or blank line.
fn expected_block(lines: &[&str], i: &mut usize) -> (String, (usize, usize)) {
    let start = *i;
    let mut out = Vec::new();
    while let Some(l) = lines.get(*i) {
        let l = l.trim_end();
        if is_directive(l) {
            break;
        }
        out.push(l);
        *i += 1;
    }
    (out.join("\n"), (start, *i))
}

impl Walkthrough {
    /// Checks that the walkthrough is complete: an id of `[a-z0-9-]`, titles and narration in
    /// both languages, something to run in every step, an expected result for every check.
    ///
    /// # Errors
    /// The first problem found, as a [`WalkError`] naming `file`, the line and the step.
    pub fn validate(&self, file: &str) -> Result<(), WalkError> {
        let err = |line: usize, step: Option<usize>, message: WalkMsg| WalkError {
            file: file.to_string(),
            line,
            step,
            message,
        };
        if self.id.is_empty()
            || !self
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(err(0, None, WalkMsg::BadId));
        }
        if self.title.en.is_empty() || self.title.zh.is_empty() {
            return Err(err(0, None, WalkMsg::NoTitles));
        }
        if self.steps.is_empty() {
            return Err(err(0, None, WalkMsg::NoSteps));
        }
        for (n, s) in self.steps.iter().enumerate() {
            let step = Some(n + 1);
            if s.title.en.is_empty() || s.title.zh.is_empty() {
                return Err(err(s.line, step, WalkMsg::StepNoTitles));
            }
            if s.say.en.is_empty() || s.say.zh.is_empty() {
                return Err(err(s.line, step, WalkMsg::StepNoNarration));
            }
            if s.sql.is_empty() && s.kv.is_empty() {
                return Err(err(s.line, step, WalkMsg::StepRunsNothing));
            }
            for c in &s.sql {
                if c.expect.is_empty() {
                    return Err(err(c.line, step, WalkMsg::SqlNoExpected));
                }
            }
            for c in &s.kv {
                if c.expect.is_empty() {
                    return Err(err(c.line, step, WalkMsg::KvNoExpected));
                }
            }
        }
        Ok(())
    }

    /// True when `query` occurs in the id, a title or a tag, ignoring ASCII case (the
    /// English titles and tags are ASCII, Chinese has no case; full Unicode case mapping
    /// would bring its tables, about 20 KB, into the first load).
    pub fn matches(&self, query: &str) -> bool {
        let q = query.trim().to_ascii_lowercase();
        q.is_empty()
            || self.id.contains(&q)
            || self.title.en.to_ascii_lowercase().contains(&q)
            || self.title.zh.contains(&q)
            || self
                .tags
                .iter()
                .any(|t| t.to_ascii_lowercase().contains(&q))
    }
}

/// One row of `EXPLAIN QUERY PLAN`, with its depth in the plan tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRow {
    /// 0 for a top-level row.
    pub depth: usize,
    /// SQLite's text, e.g. `SCAN login`.
    pub detail: String,
}

/// What one SQL statement cost, from SQLite's statement counters (`sqlite3_stmt_status`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SqlCounters {
    /// `SQLITE_STMTSTATUS_FULLSCAN_STEP`: steps forward through a table in a full scan.
    pub fullscan_steps: i64,
    /// `SQLITE_STMTSTATUS_SORT`: sort operations.
    pub sorts: i64,
    /// `SQLITE_STMTSTATUS_AUTOINDEX`: rows put into automatic indexes.
    pub autoindex: i64,
    /// `SQLITE_STMTSTATUS_VM_STEP`: virtual machine instructions run.
    pub vm_steps: i64,
}

/// The result of one SQL statement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SqlOutcome {
    /// Column names; empty for a statement that returns no rows.
    pub columns: Vec<String>,
    /// Rows, each value rendered as text (`NULL` for null).
    pub rows: Vec<Vec<String>>,
    /// Rows changed, for a statement that returns no rows.
    pub changes: Option<u64>,
    /// `EXPLAIN QUERY PLAN` of the statement (empty when SQLite gives none).
    pub plan: Vec<PlanRow>,
    /// What it cost.
    pub counters: SqlCounters,
}

impl SqlOutcome {
    /// The text a walkthrough file holds as this statement's expected result (counters are
    /// not part of it: they vary between SQLite versions).
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        if !self.columns.is_empty() {
            out.push(grid_line(&self.columns));
            for r in &self.rows {
                out.push(grid_line(r));
            }
        } else {
            out.push(format!("changes: {}", self.changes.unwrap_or(0)));
        }
        for p in &self.plan {
            out.push(format!("plan: {}{}", "  ".repeat(p.depth), p.detail));
        }
        out.join("\n")
    }
}

/// `| a | b |`.
fn grid_line(cells: &[String]) -> String {
    let mut s = String::from("|");
    for c in cells {
        s.push(' ');
        s.push_str(&c.replace('\n', "\\n"));
        s.push_str(" |");
    }
    s
}

/// The parts of an expected SQL result: header, rows, `changes`, plan lines. Used by the app
/// to show a file's expected result as a grid.
pub fn parse_sql_text(text: &str) -> SqlOutcome {
    let mut o = SqlOutcome::default();
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("plan: ") {
            let detail = p.trim_start();
            o.plan.push(PlanRow {
                depth: (p.len() - detail.len()) / 2,
                detail: detail.to_string(),
            });
        } else if let Some(n) = line.strip_prefix("changes: ") {
            o.changes = n.trim().parse().ok();
        } else if let Some(cells) = line.strip_prefix('|') {
            let cells: Vec<String> = cells
                .trim_end_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect();
            if o.columns.is_empty() {
                o.columns = cells;
            } else {
                o.rows.push(cells);
            }
        }
    }
    o
}

/// The `id` of each walkthrough listed in an index file (`www/walkthroughs/index.txt`): one
/// file name per line, `#` comments and blank lines ignored.
pub fn parse_index(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "id: t\ntitle.en: T\ntitle.zh: 题\n\n[schema]\nCREATE TABLE t(a);\n\n[seed]\nSET a 1\n\n[step]\ntitle.en: One\ntitle.zh: 一\nen: Hello\nen: there.\nen:\nen: Second.\nzh: 你好\nsql> SELECT a\n  FROM t;\n| a |\nplan: SCAN t\nkv> GET a\n\"1\"\n";

    #[test]
    fn parses_sections_and_multiline_sql() {
        let w = parse("t.walk", GOOD).unwrap();
        assert_eq!(w.schema, "CREATE TABLE t(a);");
        assert_eq!(w.seed[0].command, "SET a 1");
        let s = &w.steps[0];
        assert_eq!(s.say.en, "Hello there.\n\nSecond.");
        assert_eq!(s.sql[0].sql, "SELECT a\n  FROM t;");
        assert_eq!(s.sql[0].expect, "| a |\nplan: SCAN t");
        assert_eq!(s.kv[0].expect, "\"1\"");
        w.validate("t.walk").unwrap();
    }

    #[test]
    fn errors_name_file_line_and_step() {
        let bad = GOOD.replace("kv> GET a\n\"1\"\n", "kv> GET a\n");
        let e = parse("t.walk", &bad)
            .unwrap()
            .validate("t.walk")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.walk:23: step 1: kv> has no expected reply below it"
        );
        let bad = GOOD.replace("  FROM t;", "  FROM t");
        let e = parse("t.walk", &bad).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("t.walk:19: step 1: SQL statement"));
        let e = parse("t.walk", "id: x\n[steps]\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(e.message, WalkMsg::UnknownSection("steps".into()));
        assert_eq!(
            e.text(Lang::Zh),
            "演练文件有误：t.walk 第 2 行：未知的段 [steps]（应为 [schema]、[seed] 或 [step]）"
        );
    }

    #[test]
    fn sql_text_round_trips() {
        let o = SqlOutcome {
            columns: vec!["a".into(), "b".into()],
            rows: vec![vec!["1".into(), "x y".into()]],
            changes: None,
            plan: vec![
                PlanRow {
                    depth: 0,
                    detail: "SCAN t".into(),
                },
                PlanRow {
                    depth: 1,
                    detail: "USE TEMP B-TREE FOR ORDER BY".into(),
                },
            ],
            counters: SqlCounters::default(),
        };
        let text = o.to_text();
        assert_eq!(
            text,
            "| a | b |\n| 1 | x y |\nplan: SCAN t\nplan:   USE TEMP B-TREE FOR ORDER BY"
        );
        assert_eq!(parse_sql_text(&text), o);
    }
}
