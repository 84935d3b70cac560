//! The walkthroughs' texts: the page's fixed texts ([`WalkStrings`], through
//! [`Lang::walk`]), what can be wrong with a walkthrough file ([`WalkMsg`], produced by
//! [`crate::walk`]'s parser and validation) and the page's texts that take a value
//! ([`WalkText`]). Each message is data; [`WalkMsg::text`] and [`WalkText::text`] render it
//! in a language, so no English text is ever matched back into Chinese.
//!
//! The parts of a message quoted from the file (a section's or field's name, a line) are
//! shown as written, in both languages.

use super::lang::Lang;

/// The texts of the walkthrough page (`src/ui/walkthrough`) added for issue 23: the step
/// screen, the table browser, free play's editing hint and the recap.
#[derive(Debug, PartialEq, Eq)]
pub struct WalkStrings {
    /// Heading over `EXPLAIN QUERY PLAN` rows.
    pub query_plan: &'static str,
    /// Summary of the collapsible setup (schema, seed rows, seeded keys).
    pub setup: &'static str,
    /// Heading of the SQL side's setup.
    pub schema: &'static str,
    /// Heading of the KV side's setup.
    pub seeded_keys: &'static str,
    /// Shown under a step's code before it runs.
    pub not_run: &'static str,
    /// Beside a collapsed step that has run.
    pub ran: &'static str,
    /// Beside a collapsed step that has not run.
    pub not_run_short: &'static str,
    /// A step without SQL.
    pub no_sql: &'static str,
    /// A step without KV commands.
    pub no_kv: &'static str,
    /// The table browser's heading.
    pub tables: &'static str,
    /// After a row count.
    pub rows: &'static str,
    /// Label of a table's columns.
    pub columns: &'static str,
    /// Label of a table's indexes.
    pub indexes: &'static str,
    /// A table without indexes.
    pub no_index: &'static str,
    /// A column of the primary key.
    pub primary_key: &'static str,
    /// A unique index.
    pub unique: &'static str,
    /// Before "N of M rows".
    pub showing_first: &'static str,
    /// The recap's heading.
    pub recap: &'static str,
    /// What the SQL side built.
    pub sql_built: &'static str,
    /// What the KV side built.
    pub kv_built: &'static str,
    /// An index declared in the `[schema]`.
    pub in_schema: &'static str,
    /// The SQL side built nothing.
    pub sql_built_none: &'static str,
    /// The KV side built nothing.
    pub kv_built_none: &'static str,
    /// Before the write commands that maintain a key (with its own spacing).
    pub kept_by: &'static str,
    /// After a key count.
    pub keys: &'static str,
    /// Heading of the cost table.
    pub cost_growth: &'static str,
    /// The cost table's step column.
    pub step: &'static str,
    /// The cost table's SQL column.
    pub cost_sql: &'static str,
    /// The cost table's KV column.
    pub cost_kv: &'static str,
    /// What N and M stand for.
    pub cost_note: &'static str,
    /// The link to the workbench with the final data.
    pub try_it: &'static str,
    /// After the link: how many write commands, then this.
    pub try_note: &'static str,
    /// Free play's editing hint.
    pub edit_hint: &'static str,
    /// Button that puts the current step's code into the free-play boxes.
    pub use_step_code: &'static str,
    /// The label of the free-play SQL box.
    pub sql_box: &'static str,
    /// The label of the free-play KV box.
    pub kv_box: &'static str,
    // walkthrough page, moved from src/ui/walkthrough (issue 22)
    /// The route names a walkthrough that is not in the catalog.
    pub not_found: &'static str,
    /// While the catalog or a walkthrough loads.
    pub loading: &'static str,
    /// The link back to the list.
    pub all_walkthroughs: &'static str,
    /// The free-play section's name and its toggle button.
    pub free_play: &'static str,
    /// Free play's run button.
    pub run_free: &'static str,
    /// Accessible name of the step dots.
    pub steps_nav: &'static str,
    /// Button: the previous step.
    pub previous: &'static str,
    /// Button: run the current step.
    pub run_step: &'static str,
    /// Button: the next step.
    pub next: &'static str,
    /// Button: run every step.
    pub run_all: &'static str,
    /// Button: start the walkthrough afresh.
    pub reset: &'static str,
    /// Accessible name of the walkthrough's key tree.
    pub keyspace: &'static str,
    /// Heading of the walkthrough's key tree.
    pub keyspace_grouped: &'static str,
    /// On a card of the list, after the number of steps.
    pub steps_unit: &'static str,
    /// The list's link back to the workbench.
    pub workbench: &'static str,
    /// The list's heading.
    pub list_title: &'static str,
    /// Placeholder and accessible name of the list's search box.
    pub search: &'static str,
    /// Summary of the box that loads a file or a URL.
    pub load_file: &'static str,
    /// Button: load the file at the URL typed.
    pub load_url: &'static str,
    /// Where the file format is described.
    pub format_hint: &'static str,
    /// Heading of a step's SQL side, before the step's label.
    pub sql_heading: &'static str,
    /// Heading of a step's KV side, before the step's label.
    pub kv_heading: &'static str,
    /// A statement's counters: steps of full-table scans.
    pub full_scan_steps: &'static str,
    /// A statement's counters: sorts.
    pub sorts: &'static str,
    /// A statement's counters: virtual machine steps.
    pub vm_steps: &'static str,
    /// Before the expected result of a check that failed (with its line break).
    pub file_expected: &'static str,
    /// A step's KV total: the number of commands.
    pub commands: &'static str,
    /// A step's KV total: the number of keys touched.
    pub keys_touched: &'static str,
}

/// English walkthrough texts.
pub const WALK_EN: WalkStrings = WalkStrings {
    query_plan: "Query plan",
    setup: "Setup: the tables and their rows, the seeded keys",
    schema: "Schema and seed rows",
    seeded_keys: "Seeded keys",
    not_run: "Not run yet: read the step, then press Run step.",
    ran: "ran",
    not_run_short: "not run",
    no_sql: "No SQL in this step.",
    no_kv: "No KV commands in this step.",
    tables: "Tables (SQLite)",
    rows: "rows",
    columns: "Columns",
    indexes: "Indexes",
    no_index: "none besides the primary key",
    primary_key: "primary key",
    unique: "unique",
    showing_first: "showing the first",
    recap: "Recap: what each side built",
    sql_built: "SQL: indexes and tables added",
    kv_built: "KV: keys the writes maintain",
    in_schema: "in the schema",
    sql_built_none: "Nothing: every question was answered from the tables as they were.",
    kv_built_none: "No keys beyond the seeded ones.",
    kept_by: "kept by ",
    keys: "keys",
    cost_growth: "Cost as the data grows",
    step: "Step",
    cost_sql: "SQL (read from the query plan)",
    cost_kv: "KV (from the command table)",
    cost_note: "N: rows in the table, or elements in the key; M: rows or elements returned. \
        A plan that SEARCHes descends a B-tree, one that SCANs reads every row; on the KV side \
        the command chosen fixes the cost.",
    try_it: "Open the final KV data in the workbench →",
    try_note: "write commands rebuild it in a workspace of its own; you confirm before they run.",
    edit_hint: "Tab indents. To leave a box with the keyboard: Shift+Tab, or Esc then Tab.",
    use_step_code: "Use this step's code",
    sql_box: "SQL: statements end with ;",
    kv_box: "KV: one command per line",
    // walkthrough page, moved from src/ui/walkthrough (issue 22)
    not_found: "No walkthrough with this id.",
    loading: "Loading…",
    all_walkthroughs: "← All walkthroughs",
    free_play: "Free play",
    run_free: "Run both sides",
    steps_nav: "Steps",
    previous: "← Previous",
    run_step: "Run step",
    next: "Next →",
    run_all: "Run all",
    reset: "Reset",
    keyspace: "Keyspace",
    keyspace_grouped: "Keyspace (grouped by ':')",
    steps_unit: "steps",
    workbench: "← Workbench",
    list_title: "Walkthroughs: SQL and KV side by side",
    search: "Search walkthroughs",
    load_file: "Load a walkthrough file",
    load_url: "Load from URL",
    format_hint: "Format: docs/walkthroughs.md",
    sql_heading: "SQL (SQLite)",
    kv_heading: "Key-value (kvlab)",
    full_scan_steps: "full-scan steps",
    sorts: "sorts",
    vm_steps: "VM steps",
    file_expected: "The file expected:\n",
    commands: "commands",
    keys_touched: "keys touched",
};

/// Chinese walkthrough texts.
pub const WALK_ZH: WalkStrings = WalkStrings {
    query_plan: "查询计划",
    setup: "准备：数据表及其初始行、初始键",
    schema: "表结构与初始数据",
    seeded_keys: "初始键",
    not_run: "尚未运行：先读一读本步，再点“运行本步”。",
    ran: "已运行",
    not_run_short: "未运行",
    no_sql: "本步没有 SQL。",
    no_kv: "本步没有键值命令。",
    tables: "数据表（SQLite）",
    rows: "行",
    columns: "列",
    indexes: "索引",
    no_index: "除主键外没有",
    primary_key: "主键",
    unique: "唯一",
    showing_first: "仅显示前",
    recap: "回顾：两边各建了什么",
    sql_built: "SQL：新增的索引和表",
    kv_built: "键值：写入时维护的键",
    in_schema: "表结构中已有",
    sql_built_none: "没有：所有问题都直接用原有的表回答。",
    kv_built_none: "除初始键外没有新增的键。",
    kept_by: "维护命令：",
    keys: "个键",
    cost_growth: "数据增长时的代价",
    step: "步骤",
    cost_sql: "SQL（依据查询计划）",
    cost_kv: "键值（依据命令表）",
    cost_note: "N：表中的行数，或键中的元素个数；M：返回的行数或元素个数。\
        执行计划中的 SEARCH 表示沿 B 树查找，SCAN 表示逐行读完整张表；键值这边的代价由所选的命令决定。",
    try_it: "在工作台中打开最终的键值数据 →",
    try_note: "条写命令会在单独的工作区中重建这些数据；执行前会先请你确认。",
    edit_hint: "Tab 键用于缩进。用键盘离开输入框：按 Shift+Tab，或先按 Esc 再按 Tab。",
    use_step_code: "填入本步的代码",
    sql_box: "SQL：每条语句以 ; 结尾",
    kv_box: "键值：每行一条命令",
    // walkthrough page, moved from src/ui/walkthrough (issue 22)
    not_found: "没有这个 id 的演练。",
    loading: "加载中…",
    all_walkthroughs: "← 全部演练",
    free_play: "自由练习",
    run_free: "两边都运行",
    steps_nav: "步骤",
    previous: "← 上一步",
    run_step: "运行本步",
    next: "下一步 →",
    run_all: "全部运行",
    reset: "重置",
    keyspace: "键空间",
    keyspace_grouped: "键空间（按 ':' 分组）",
    steps_unit: "步",
    workbench: "← 工作台",
    list_title: "演练：SQL 与键值并排对照",
    search: "搜索演练",
    load_file: "加载演练文件",
    load_url: "从 URL 加载",
    format_hint: "格式说明：docs/walkthroughs.md",
    sql_heading: "SQL（SQLite）",
    kv_heading: "键值（kvlab）",
    full_scan_steps: "全表扫描步数",
    sorts: "排序",
    vm_steps: "虚拟机步数",
    file_expected: "文件中的预期：\n",
    commands: "命令数",
    keys_touched: "涉及的键",
};

impl Lang {
    /// The walkthrough texts of this language.
    pub fn walk(self) -> &'static WalkStrings {
        match self {
            Lang::En => &WALK_EN,
            Lang::Zh => &WALK_ZH,
        }
    }
}

/// What is wrong with a walkthrough file: made by [`crate::walk::parse`] and
/// [`crate::walk::Walkthrough::validate`], carried in a [`crate::walk::WalkError`] with the
/// file, line and step, rendered by [`WalkMsg::text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkMsg {
    /// The `id:` is empty or not made of `[a-z0-9-]`.
    BadId,
    /// The header lacks a title in one of the languages.
    NoTitles,
    /// The file has no `[step]`.
    NoSteps,
    /// A step lacks a title in one of the languages.
    StepNoTitles,
    /// A step lacks narration in one of the languages.
    StepNoNarration,
    /// A step has neither `sql>` nor `kv>` lines.
    StepRunsNothing,
    /// A `sql>` line has no expected result under it.
    SqlNoExpected,
    /// A `kv>` line has no expected reply under it.
    KvNoExpected,
    /// The file ends inside a SQL statement.
    SqlUnterminated,
    /// A SQL statement runs into the next directive.
    SqlUnterminatedBeforeNext,
    /// A `[section]` other than schema, seed and step: its name as written.
    UnknownSection(String),
    /// A header field that is not known: its name as written.
    UnknownHeaderField(String),
    /// A header line without `:`: the line.
    HeaderNotField(String),
    /// A line in a step that is none of the known kinds: the line.
    UnknownLine(String),
}

impl WalkMsg {
    /// The message in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        use WalkMsg::*;
        let fixed = match (self, lang) {
            (BadId, Lang::En) => "id: must be lowercase letters, digits and '-'",
            (BadId, Lang::Zh) => "id: 只能包含小写字母、数字和 '-'",
            (NoTitles, Lang::En) => "needs title.en and title.zh",
            (NoTitles, Lang::Zh) => "缺少 title.en 和 title.zh",
            (NoSteps, Lang::En) => "has no [step]",
            (NoSteps, Lang::Zh) => "没有任何 [step]",
            (StepNoTitles, Lang::En) => "needs title.en: and title.zh:",
            (StepNoTitles, Lang::Zh) => "缺少 title.en: 和 title.zh:",
            (StepNoNarration, Lang::En) => "needs narration in en: and zh:",
            (StepNoNarration, Lang::Zh) => "缺少 en: 和 zh: 的讲解文字",
            (StepRunsNothing, Lang::En) => "runs nothing: add sql> or kv> lines",
            (StepRunsNothing, Lang::Zh) => "没有要执行的内容：请添加 sql> 或 kv> 行",
            (SqlNoExpected, Lang::En) => "sql> has no expected result below it",
            (SqlNoExpected, Lang::Zh) => "sql> 下面缺少预期结果",
            (KvNoExpected, Lang::En) => "kv> has no expected reply below it",
            (KvNoExpected, Lang::Zh) => "kv> 下面缺少预期回复",
            (SqlUnterminated, Lang::En) => "SQL statement does not end with ';'",
            (SqlUnterminated, Lang::Zh) => "SQL 语句没有以 ';' 结尾",
            (SqlUnterminatedBeforeNext, Lang::En) => {
                "SQL statement does not end with ';' before the next line that starts something else"
            }
            (SqlUnterminatedBeforeNext, Lang::Zh) => {
                "SQL 语句在下一段内容开始之前没有以 ';' 结尾"
            }
            (UnknownSection(name), Lang::En) => {
                return format!("unknown section [{name}] (expected [schema], [seed] or [step])")
            }
            (UnknownSection(name), Lang::Zh) => {
                return format!("未知的段 [{name}]（应为 [schema]、[seed] 或 [step]）")
            }
            (UnknownHeaderField(name), Lang::En) => {
                return format!("unknown header field {name:?} (expected id, title.en, title.zh, intro.en, intro.zh or tags)")
            }
            (UnknownHeaderField(name), Lang::Zh) => {
                return format!("未知的文件头字段 {name:?}（应为 id、title.en、title.zh、intro.en、intro.zh 或 tags）")
            }
            (HeaderNotField(got), Lang::En) => {
                return format!("expected 'field: value' in the header, got {got:?}")
            }
            (HeaderNotField(got), Lang::Zh) => {
                return format!("文件头中应为 'field: value'，实际为 {got:?}")
            }
            (UnknownLine(got), Lang::En) => {
                return format!("expected title.en:, title.zh:, en:, zh:, sql> or kv>, got {got:?}")
            }
            (UnknownLine(got), Lang::Zh) => {
                return format!("应为 title.en:、title.zh:、en:、zh:、sql> 或 kv>，实际为 {got:?}")
            }
        };
        fixed.to_string()
    }
}

/// A text of the walkthrough page that takes a value, rendered by [`WalkText::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkText<'a> {
    /// A file that could not be fetched: its URL and what the browser or server said
    /// (`HTTP 404`, or the browser's own error text, kept verbatim).
    FetchFailed {
        /// The URL asked for.
        url: &'a str,
        /// What went wrong.
        detail: &'a str,
    },
    /// A file that is not a valid walkthrough: where, and what is wrong.
    BadFile {
        /// The file's name.
        file: &'a str,
        /// 1-based line; 0 when the message is about the whole file.
        line: usize,
        /// 1-based step, when the message is about a step.
        step: Option<usize>,
        /// What is wrong.
        msg: &'a WalkMsg,
    },
    /// The label of a run in its panes' headings: step `n`, or free play for 0.
    RunLabel(usize),
    /// Where the recap's SQL side built something: step `n`, or the schema for 0.
    BuiltAt(usize),
    /// SQLite's change count after a write.
    RowsChanged(u64),
}

impl WalkText<'_> {
    /// The text in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        match (*self, lang) {
            (WalkText::FetchFailed { url, detail }, Lang::En) => format!("{url}: {detail}"),
            (WalkText::FetchFailed { url, detail }, Lang::Zh) => {
                format!("无法获取 {url}：{detail}")
            }
            (
                WalkText::BadFile {
                    file,
                    line,
                    step,
                    msg,
                },
                Lang::En,
            ) => {
                let mut out = file.to_string();
                if line > 0 {
                    out.push_str(&format!(":{line}"));
                }
                if let Some(step) = step {
                    out.push_str(&format!(": step {step}"));
                }
                format!("{out}: {}", msg.text(lang))
            }
            (
                WalkText::BadFile {
                    file,
                    line,
                    step,
                    msg,
                },
                Lang::Zh,
            ) => {
                let mut at = file.to_string();
                if line > 0 {
                    at.push_str(&format!(" 第 {line} 行"));
                }
                if let Some(step) = step {
                    at.push_str(&format!("（第 {step} 步）"));
                }
                format!("演练文件有误：{at}：{}", msg.text(lang))
            }
            (WalkText::RunLabel(0), Lang::En) => "free play".to_string(),
            (WalkText::RunLabel(0), Lang::Zh) => "自由练习".to_string(),
            (WalkText::RunLabel(n), Lang::En) => format!("step {n}"),
            (WalkText::RunLabel(n), Lang::Zh) => format!("步骤 {n}"),
            (WalkText::BuiltAt(0), _) => lang.walk().in_schema.to_string(),
            (WalkText::BuiltAt(n), Lang::En) => format!("step {n}"),
            (WalkText::BuiltAt(n), Lang::Zh) => format!("第 {n} 步"),
            (WalkText::RowsChanged(1), Lang::En) => "1 row changed".to_string(),
            (WalkText::RowsChanged(n), Lang::En) => format!("{n} rows changed"),
            (WalkText::RowsChanged(n), Lang::Zh) => format!("已修改 {n} 行"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message with its English and Chinese text as the app showed them before the
    /// messages were data (the Chinese then came from matching the English).
    fn every_message() -> Vec<(WalkMsg, &'static str, &'static str)> {
        use WalkMsg::*;
        vec![
            (BadId, "id: must be lowercase letters, digits and '-'", "id: 只能包含小写字母、数字和 '-'"),
            (NoTitles, "needs title.en and title.zh", "缺少 title.en 和 title.zh"),
            (NoSteps, "has no [step]", "没有任何 [step]"),
            (StepNoTitles, "needs title.en: and title.zh:", "缺少 title.en: 和 title.zh:"),
            (StepNoNarration, "needs narration in en: and zh:", "缺少 en: 和 zh: 的讲解文字"),
            (StepRunsNothing, "runs nothing: add sql> or kv> lines", "没有要执行的内容：请添加 sql> 或 kv> 行"),
            (SqlNoExpected, "sql> has no expected result below it", "sql> 下面缺少预期结果"),
            (KvNoExpected, "kv> has no expected reply below it", "kv> 下面缺少预期回复"),
            (SqlUnterminated, "SQL statement does not end with ';'", "SQL 语句没有以 ';' 结尾"),
            (
                SqlUnterminatedBeforeNext,
                "SQL statement does not end with ';' before the next line that starts something else",
                "SQL 语句在下一段内容开始之前没有以 ';' 结尾",
            ),
            (
                UnknownSection("steps".into()),
                "unknown section [steps] (expected [schema], [seed] or [step])",
                "未知的段 [steps]（应为 [schema]、[seed] 或 [step]）",
            ),
            (
                UnknownHeaderField("titel".into()),
                "unknown header field \"titel\" (expected id, title.en, title.zh, intro.en, intro.zh or tags)",
                "未知的文件头字段 \"titel\"（应为 id、title.en、title.zh、intro.en、intro.zh 或 tags）",
            ),
            (
                HeaderNotField("oops".into()),
                "expected 'field: value' in the header, got \"oops\"",
                "文件头中应为 'field: value'，实际为 \"oops\"",
            ),
            (
                UnknownLine("say: hi".into()),
                "expected title.en:, title.zh:, en:, zh:, sql> or kv>, got \"say: hi\"",
                "应为 title.en:、title.zh:、en:、zh:、sql> 或 kv>，实际为 \"say: hi\"",
            ),
        ]
    }

    #[test]
    fn every_file_message_renders_as_before_in_both_languages() {
        for (msg, en, zh) in every_message() {
            assert_eq!(msg.text(Lang::En), en);
            assert_eq!(msg.text(Lang::Zh), zh);
        }
    }

    #[test]
    fn a_bad_file_names_where_in_both_languages() {
        let msg = WalkMsg::KvNoExpected;
        let at = |line, step| WalkText::BadFile {
            file: "t.walk",
            line,
            step,
            msg: &msg,
        };
        assert_eq!(
            at(23, Some(1)).text(Lang::En),
            "t.walk:23: step 1: kv> has no expected reply below it"
        );
        assert_eq!(
            at(23, Some(1)).text(Lang::Zh),
            "演练文件有误：t.walk 第 23 行（第 1 步）：kv> 下面缺少预期回复"
        );
        assert_eq!(
            at(0, None).text(Lang::En),
            "t.walk: kv> has no expected reply below it"
        );
        assert_eq!(
            at(0, None).text(Lang::Zh),
            "演练文件有误：t.walk：kv> 下面缺少预期回复"
        );
    }

    #[test]
    fn page_texts_with_values_render_as_before() {
        let cases = [
            (
                WalkText::FetchFailed {
                    url: "walkthroughs/x.walk",
                    detail: "HTTP 404",
                },
                "walkthroughs/x.walk: HTTP 404",
                "无法获取 walkthroughs/x.walk：HTTP 404",
            ),
            (WalkText::RunLabel(0), "free play", "自由练习"),
            (WalkText::RunLabel(3), "step 3", "步骤 3"),
            (WalkText::BuiltAt(0), "in the schema", "表结构中已有"),
            (WalkText::BuiltAt(2), "step 2", "第 2 步"),
            (WalkText::RowsChanged(1), "1 row changed", "已修改 1 行"),
            (WalkText::RowsChanged(4), "4 rows changed", "已修改 4 行"),
        ];
        for (text, en, zh) in cases {
            assert_eq!(text.text(Lang::En), en);
            assert_eq!(text.text(Lang::Zh), zh);
        }
    }
}
