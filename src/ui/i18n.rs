//! User-interface strings in English and Simplified Chinese.
//!
//! Every visible or accessible text of the UI lives here, once per language, so the two
//! stay in step: a missing field is a compile error. Redis's own replies (`(error) ERR …`,
//! `Invalid argument(s)`) are never translated — they are what a real `redis-cli` prints.

/// A UI language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// English.
    En,
    /// Simplified Chinese (zh-CN).
    Zh,
}

impl Lang {
    /// Picks the language from a BCP 47 tag such as `navigator.language`: any `zh…` tag
    /// gives Chinese, everything else English.
    pub fn from_tag(tag: &str) -> Lang {
        if tag.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("zh")) {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// The language the browser asks for (`navigator.language`), English if unknown.
    #[cfg(target_arch = "wasm32")]
    pub fn detect() -> Lang {
        web_sys::window()
            .and_then(|w| w.navigator().language())
            .map(|tag| Lang::from_tag(&tag))
            .unwrap_or(Lang::En)
    }

    /// The other language, for the switch button.
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }

    /// The tag for `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    /// The strings of this language.
    pub fn strings(self) -> &'static Strings {
        match self {
            Lang::En => &EN,
            Lang::Zh => &ZH,
        }
    }
}

/// The UI texts of one language.
#[derive(Debug, PartialEq, Eq)]
pub struct Strings {
    /// The language's own name, shown on the switch button of the other language.
    pub name: &'static str,
    /// Document title.
    pub title: &'static str,
    /// Line under the logo.
    pub tagline: &'static str,
    /// Accessible name of the command textbox.
    pub command: &'static str,
    /// Accessible name of the output log.
    pub output: &'static str,
    /// Accessible name of the language switch button.
    pub switch_language: &'static str,
    /// First line of the welcome banner.
    pub welcome: &'static str,
    /// Second line of the welcome banner: something to type.
    pub try_it: &'static str,
    /// Key help: history.
    pub key_history: &'static str,
    /// Key help: clearing the screen.
    pub key_clear: &'static str,
    /// Key help: running a command.
    pub key_run: &'static str,
    /// Status bar: where the engine runs.
    pub engine_status: &'static str,
    /// Status bar: the word after a key count of one.
    pub key: &'static str,
    /// Status bar: the word after any other key count.
    pub keys: &'static str,
    /// Status bar, with `maxmemory` set: the label before "used / limit".
    pub memory: &'static str,
    /// Status bar, with `maxmemory` set: the words after the number of keys evicted.
    pub evicted: &'static str,
    /// Status bar, with `maxmemory` set: the tooltip, before the policy's name.
    pub memory_title: &'static str,
    /// A client pane's default name, before its number.
    pub client: &'static str,
    /// Accessible name of the section navigation.
    pub nav: &'static str,
    /// The workbench tab (consoles, browser, views).
    pub tab_workbench: &'static str,
    /// The walkthroughs section (SQL versus KV).
    pub tab_walkthroughs: &'static str,
    /// The cluster-mode switch of the keyspace browser.
    pub cluster_mode: &'static str,
    /// What the cluster-mode switch changes, beside its label.
    pub cluster_mode_hint: &'static str,
    /// Button switching to the light theme.
    pub theme_light: &'static str,
    /// Button switching to the dark theme.
    pub theme_dark: &'static str,
    /// Button opening another client pane.
    pub add_client: &'static str,
    /// Accessible name of a pane's close button.
    pub close_client: &'static str,
    /// Accessible name of a pane's name field.
    pub rename_client: &'static str,
    /// A blocked pane: waiting for data.
    pub blocked: &'static str,
    /// A pane blocked in `WAIT`: no replica will acknowledge.
    pub blocked_wait: &'static str,
    /// A pane whose command is held back by `CLIENT PAUSE`.
    pub blocked_pause: &'static str,
    /// Before the seconds left until a blocked command times out.
    pub timeout_in: &'static str,
    /// A blocked command without timeout.
    pub no_timeout: &'static str,
    /// A pane in pub/sub mode.
    pub subscribed: &'static str,
    /// A pane inside MULTI: the queue.
    pub queued: &'static str,
    /// Heading of the keyspace browser.
    pub keyspace: &'static str,
    /// Accessible name of the key filter (SCAN MATCH glob).
    pub filter: &'static str,
    /// Accessible name of the delimiter field.
    pub delimiter: &'static str,
    /// The tree-view toggle.
    pub tree_view: &'static str,
    /// The flat-list toggle.
    pub list_view: &'static str,
    /// Accessible name of the key tree.
    pub key_tree: &'static str,
    /// The browser when no key matches.
    pub no_keys: &'static str,
    /// Heading of the value view.
    pub value: &'static str,
    /// The value view with no key selected.
    pub pick_key: &'static str,
    /// The selected key no longer exists.
    pub gone: &'static str,
    /// Label of the TTL.
    pub ttl: &'static str,
    /// A key without TTL.
    pub persistent: &'static str,
    /// Button: set a TTL (EXPIRE).
    pub expire: &'static str,
    /// Button: remove the TTL (PERSIST).
    pub persist: &'static str,
    /// Button: delete the key (DEL).
    pub delete: &'static str,
    /// Placeholder of the seconds field.
    pub seconds: &'static str,
    /// Placeholder: an element/member/value.
    pub element: &'static str,
    /// Placeholder: a hash field.
    pub field: &'static str,
    /// Placeholder: a score.
    pub score: &'static str,
    /// Button: add.
    pub add: &'static str,
    /// Accessible name of a remove button.
    pub remove: &'static str,
    /// Button: save a string (SET).
    pub save: &'static str,
    /// String view mode: raw text.
    pub raw: &'static str,
    /// String view mode: pretty JSON.
    pub json: &'static str,
    /// String view mode: hex dump.
    pub hex: &'static str,
    /// String view mode: grid of bits.
    pub bits: &'static str,
    /// Zset view mode: table.
    pub table: &'static str,
    /// Zset view mode: map of geo members.
    pub map: &'static str,
    /// Marks a list's head.
    pub head: &'static str,
    /// Marks a list's tail.
    pub tail: &'static str,
    /// Column: rank.
    pub rank: &'static str,
    /// Column: member.
    pub member: &'static str,
    /// Before the number of elements shown of a large value.
    pub showing_first: &'static str,
    /// Between elements shown and the total.
    pub of: &'static str,
    /// Before the command that last changed the value.
    pub changed_by: &'static str,
    /// Heading of elements removed by the last change.
    pub removed: &'static str,
    /// Label of an HLL's cardinality estimate.
    pub hll_estimate: &'static str,
    /// Label: an encoding.
    pub encoding: &'static str,
    /// Unit: bytes.
    pub bytes: &'static str,
    /// Heading of the set-operation diagram.
    pub set_op: &'static str,
    /// Label: a set operation's result.
    pub result: &'static str,
    /// Accessible name of a close button.
    pub close: &'static str,
    /// A type without a view yet.
    pub no_view: &'static str,
    /// UI text: Entries
    pub entries: &'static str,
    /// UI text: ID
    pub entry_id: &'static str,
    /// UI text: Length
    pub length: &'static str,
    /// UI text: Last ID
    pub last_id: &'static str,
    /// UI text: Entries added
    pub entries_added: &'static str,
    /// UI text: Consumer groups
    pub groups: &'static str,
    /// UI text: No consumer groups.
    pub no_groups: &'static str,
    /// UI text: Consumers
    pub consumers: &'static str,
    /// UI text: Pending
    pub pending: &'static str,
    /// UI text: Last delivered
    pub last_delivered: &'static str,
    /// UI text: Entries read
    pub entries_read: &'static str,
    /// UI text: Lag
    pub lag: &'static str,
    /// UI text: Deliveries
    pub deliveries: &'static str,
    /// UI text: Consumer
    pub consumer: &'static str,
    /// UI text: Acknowledge
    pub ack: &'static str,
    /// UI text: hash slot
    pub hash_slot: &'static str,
    /// Between a label and its value: `: ` in English, a full-width `：` in Chinese.
    pub colon: &'static str,
    // key tree, value view, a11y (issue 23)
    /// One element of a collection, after the number 1 in a tree row.
    pub item_one: &'static str,
    /// Elements of a collection, after their number in a tree row.
    pub items: &'static str,
    /// Keys in a folder, after their number (a folder's title).
    pub keys_unit: &'static str,
    /// Before a key's hash slot in a tree row (cluster mode only).
    pub slot: &'static str,
    /// Summary of the key tree's less-used settings (cluster mode).
    pub advanced: &'static str,
    /// The viewed key was removed because its TTL ran out.
    pub expired_note: &'static str,
    /// The viewed key was removed by maxmemory eviction.
    pub evicted_note: &'static str,
    /// Heading of the first screen's walkthrough cards.
    pub start_title: &'static str,
    /// Under the heading of the walkthrough cards.
    pub start_hint: &'static str,
    /// Card: the login walkthrough.
    pub start_login: &'static str,
    /// Card text: the login walkthrough.
    pub start_login_blurb: &'static str,
    /// Card: the tags walkthrough.
    pub start_tags: &'static str,
    /// Card text: the tags walkthrough.
    pub start_tags_blurb: &'static str,
    /// Link to the list of walkthroughs.
    pub start_all: &'static str,
    /// A skip link to the command box.
    pub skip_to_console: &'static str,
}

const EN: Strings = Strings {
    name: "English",
    title: "kvlab — Redis in your browser",
    tagline: "Redis data structures, running in this page",
    command: "Command",
    output: "Output",
    switch_language: "Switch language to Chinese",
    welcome:
        "A Redis 7.0 compatible engine, compiled to WebAssembly and running locally in this page.",
    try_it: "Try:",
    key_history: "history",
    key_clear: "clear",
    key_run: "run",
    engine_status: "engine: in this page",
    key: "key",
    keys: "keys",
    memory: "memory",
    evicted: "evicted",
    memory_title:
        "Used memory (as INFO memory reports it) against maxmemory; keys evicted so far. Policy:",
    client: "client",
    nav: "Sections",
    tab_workbench: "Workbench",
    tab_walkthroughs: "Walkthroughs",
    cluster_mode: "Cluster mode",
    cluster_mode_hint: "CROSSSLOT across hash slots",
    theme_light: "Light theme",
    theme_dark: "Dark theme",
    add_client: "+ Client",
    close_client: "Close client",
    rename_client: "Client name",
    blocked: "blocked, waiting for data",
    blocked_wait: "blocked in WAIT: there are no replicas to acknowledge",
    blocked_pause: "held back by CLIENT PAUSE",
    timeout_in: "timeout in",
    no_timeout: "no timeout",
    subscribed: "subscribed: messages appear as they arrive",
    queued: "MULTI queue",
    keyspace: "Keys",
    filter: "Filter keys (glob, e.g. user:*)",
    delimiter: "Delimiter",
    tree_view: "Tree",
    list_view: "List",
    key_tree: "Keys",
    no_keys: "No keys. Try: SET user:1:name Ada",
    value: "Value",
    pick_key: "Select a key to see its value. Views update live as commands run in any client.",
    gone: "The key does not exist (any more).",
    ttl: "TTL",
    persistent: "no expiry",
    expire: "Set TTL",
    persist: "Persist",
    delete: "Delete key",
    seconds: "seconds",
    element: "value",
    field: "field",
    score: "score",
    add: "Add",
    remove: "Remove",
    save: "Save",
    raw: "Text",
    json: "JSON",
    hex: "Hex",
    bits: "Bits",
    table: "Table",
    map: "Map",
    head: "head",
    tail: "tail",
    rank: "rank",
    member: "member",
    showing_first: "showing the first",
    of: "of",
    changed_by: "changed by",
    removed: "removed by the last change",
    hll_estimate: "estimated distinct elements",
    encoding: "encoding",
    bytes: "bytes",
    set_op: "Set operation",
    result: "result",
    close: "Close",
    no_view: "No view for this type yet.",
    entries: "Entries",
    entry_id: "ID",
    length: "Length",
    last_id: "Last ID",
    entries_added: "Entries added",
    groups: "Consumer groups",
    no_groups: "No consumer groups.",
    consumers: "Consumers",
    pending: "Pending",
    last_delivered: "Last delivered",
    entries_read: "Entries read",
    lag: "Lag",
    deliveries: "Deliveries",
    consumer: "Consumer",
    ack: "Acknowledge",
    hash_slot: "hash slot",
    colon: ": ",
    // key tree, value view, a11y (issue 23)
    item_one: "item",
    items: "items",
    keys_unit: "keys",
    slot: "slot",
    advanced: "Settings",
    expired_note: "Expired: its TTL ran out and the server removed the key.",
    evicted_note: "Evicted: memory was over maxmemory, so the server removed the key.",
    start_title: "New here? Start with a walkthrough",
    start_hint: "Each one builds a small feature step by step, in SQL and in Redis, and runs every command here.",
    start_login: "Login system",
    start_login_blurb: "Who logged in, how often and when: a list and a sorted set, next to SQL.",
    start_tags: "Tag system",
    start_tags_blurb: "Tags as sets: SINTER, SDIFF and SUNION instead of joins.",
    start_all: "All walkthroughs",
    skip_to_console: "Skip to the console",
};

const ZH: Strings = Strings {
    name: "中文",
    title: "kvlab — 浏览器里的 Redis",
    tagline: "在本页面中运行的 Redis 数据结构",
    command: "命令",
    output: "输出",
    switch_language: "切换为英文界面",
    welcome: "一个兼容 Redis 7.0 的引擎，编译为 WebAssembly，完全在本页面中运行。",
    try_it: "试试：",
    key_history: "历史",
    key_clear: "清屏",
    key_run: "执行",
    engine_status: "引擎：在本页面中",
    key: "个键",
    keys: "个键",
    memory: "内存",
    evicted: "个键已淘汰",
    memory_title:
        "已用内存（与 INFO memory 一致）与 maxmemory 上限；以及至今淘汰的键数。淘汰策略：",
    client: "客户端",
    nav: "页面",
    tab_workbench: "工作台",
    tab_walkthroughs: "演练",
    cluster_mode: "集群模式",
    cluster_mode_hint: "跨哈希槽的多键命令报 CROSSSLOT",
    theme_light: "浅色主题",
    theme_dark: "深色主题",
    add_client: "+ 客户端",
    close_client: "关闭客户端",
    rename_client: "客户端名称",
    blocked: "阻塞中，等待数据",
    blocked_wait: "WAIT 阻塞中：没有副本会确认",
    blocked_pause: "被 CLIENT PAUSE 暂停",
    timeout_in: "超时剩余",
    no_timeout: "无超时",
    subscribed: "已订阅：消息到达即显示",
    queued: "MULTI 队列",
    keyspace: "键空间",
    filter: "筛选键（通配符，如 user:*）",
    delimiter: "分隔符",
    tree_view: "树形",
    list_view: "列表",
    key_tree: "键",
    no_keys: "没有键。试试：SET user:1:name Ada",
    value: "值",
    pick_key: "选择一个键查看它的值。任何客户端执行命令时，视图都会实时更新。",
    gone: "该键不存在（或已被删除）。",
    ttl: "过期时间",
    persistent: "永不过期",
    expire: "设置过期",
    persist: "持久化",
    delete: "删除键",
    seconds: "秒",
    element: "值",
    field: "字段",
    score: "分数",
    add: "添加",
    remove: "移除",
    save: "保存",
    raw: "文本",
    json: "JSON",
    hex: "十六进制",
    bits: "位图",
    table: "表格",
    map: "地图",
    head: "头",
    tail: "尾",
    rank: "排名",
    member: "成员",
    showing_first: "仅显示前",
    of: "个，共",
    changed_by: "最近修改：",
    removed: "上次修改移除的元素",
    hll_estimate: "基数估计",
    encoding: "编码",
    bytes: "字节",
    set_op: "集合运算",
    result: "结果",
    close: "关闭",
    no_view: "暂不支持显示此类型。",
    entries: "条目",
    entry_id: "ID",
    length: "长度",
    last_id: "最后 ID",
    entries_added: "累计添加",
    groups: "消费者组",
    no_groups: "没有消费者组。",
    consumers: "消费者",
    pending: "待确认",
    last_delivered: "最后投递",
    entries_read: "已读条目",
    lag: "滞后",
    deliveries: "投递次数",
    consumer: "消费者",
    ack: "确认",
    hash_slot: "哈希槽",
    colon: "：",
    // key tree, value view, a11y (issue 23)
    item_one: "项",
    items: "项",
    keys_unit: "个键",
    slot: "槽",
    advanced: "设置",
    expired_note: "已过期：TTL 到期，服务器删除了这个键。",
    evicted_note: "已被淘汰：内存超过 maxmemory，服务器删除了这个键。",
    start_title: "第一次来？从一个演练开始",
    start_hint: "每个演练一步步搭一个小功能，SQL 和 Redis 对照着写，每条命令都在这里运行。",
    start_login: "登录系统",
    start_login_blurb: "谁登录过、几次、何时：列表和有序集合，与 SQL 对照。",
    start_tags: "标签系统",
    start_tags_blurb: "用集合表示标签：用 SINTER、SDIFF、SUNION 代替连接查询。",
    start_all: "全部演练",
    skip_to_console: "跳到控制台",
};

// walkthrough (issue 23)

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

// console (issue 23)

/// The console's texts for Ctrl+C, reset, completion and `--raw`.
#[derive(Debug)]
pub struct ConsoleStrings {
    /// The note after Ctrl+C stopped a blocked command.
    pub interrupted_block: &'static str,
    /// The note after Ctrl+C ended the subscriptions.
    pub interrupted_subscribe: &'static str,
    /// The note after Ctrl+C stopped `MONITOR`.
    pub interrupted_monitor: &'static str,
    /// The status line of a pane running `MONITOR`.
    pub monitoring: &'static str,
    /// The button that stops waiting.
    pub stop: &'static str,
    /// Its tooltip.
    pub stop_title: &'static str,
    /// The pane's reconnect button (accessible name and tooltip).
    pub reset: &'static str,
    /// The `--raw` switch's tooltip.
    pub raw_title: &'static str,
    /// Under the line when a reply's text was shown as `\xHH` escapes.
    pub raw_hint: &'static str,
    /// The button in that hint.
    pub raw_on: &'static str,
    /// The completion list's accessible name.
    pub completions: &'static str,
    /// After the shown candidates: how many more (`{n}`).
    pub more: &'static str,
    /// Welcome banner: what Tab does.
    pub key_complete: &'static str,
    /// Welcome banner: what Ctrl+C does.
    pub key_stop: &'static str,
}

const CONSOLE_EN: ConsoleStrings = ConsoleStrings {
    interrupted_block: "(interrupted: the command no longer waits)",
    interrupted_subscribe: "(interrupted: unsubscribed from everything)",
    interrupted_monitor: "(interrupted: MONITOR stopped)",
    monitoring: "monitoring: every command the server runs appears here",
    stop: "Stop",
    stop_title: "Stop waiting (Ctrl+C)",
    reset: "Reconnect as a new client, output cleared",
    raw_title: "Show replies as text, like redis-cli --raw",
    raw_hint: "Text shown as \\x bytes. To read it as text:",
    raw_on: "turn on --raw",
    completions: "Completions",
    more: "… {n} more: type more letters",
    key_complete: "complete",
    key_stop: "stop waiting",
};

const CONSOLE_ZH: ConsoleStrings = ConsoleStrings {
    interrupted_block: "（已中断：命令不再等待）",
    interrupted_subscribe: "（已中断：已退订全部频道）",
    interrupted_monitor: "（已中断：MONITOR 已停止）",
    monitoring: "监视中：服务器执行的每条命令都会显示在这里",
    stop: "停止",
    stop_title: "停止等待（Ctrl+C）",
    reset: "作为新客户端重新连接并清屏",
    raw_title: "按原文显示回复，同 redis-cli --raw",
    raw_hint: "文本显示为 \\x 字节。显示为原文：",
    raw_on: "打开 --raw",
    completions: "补全候选",
    more: "……另有 {n} 项，请继续输入",
    key_complete: "补全",
    key_stop: "停止等待",
};

impl Lang {
    /// The console's texts (issue 23) in this language.
    pub fn console(self) -> &'static ConsoleStrings {
        match self {
            Lang::En => &CONSOLE_EN,
            Lang::Zh => &CONSOLE_ZH,
        }
    }
}

// moved from ui/tabs_hook.rs

/// The texts of several tabs on one workspace: a follower's panes, the role badge.
#[derive(Debug)]
pub struct TabStrings {
    /// A forwarded command had no reply when the leader went.
    pub lost: &'static str,
    /// A pane's session on the old leader is gone; this tab runs the workspace now.
    pub promoted: &'static str,
    /// A pane's session on the old leader is gone; another tab runs the workspace now.
    pub moved: &'static str,
    /// A command typed before the leader answered.
    pub not_connected: &'static str,
    /// The badge of a follower.
    pub follower: &'static str,
    /// The badge of a follower not synced yet.
    pub connecting: &'static str,
    /// The badge of a leader, before the count of other tabs.
    pub leader: &'static str,
    /// Its tooltip.
    pub leader_title: &'static str,
    /// The follower badge's tooltip.
    pub follower_title: &'static str,
}

impl Lang {
    /// The texts of several tabs on one workspace in this language.
    pub fn tabs(self) -> &'static TabStrings {
        match self {
            Lang::En => &TabStrings {
                lost:
                    "Error: the tab that ran this workspace closed before replying. This command \
                   may or may not have run: check before running it again.",
                promoted:
                    "The tab that ran this workspace closed; this tab runs it now. This client \
                       was reconnected: its subscriptions, blocked command, transaction and \
                       selected database are gone.",
                moved:
                    "The tab that ran this workspace closed; another tab runs it now. This client \
                    was reconnected: its subscriptions, blocked command, transaction and \
                    selected database are gone.",
                not_connected: "Error: not connected yet to the tab that runs this workspace. Try \
                            again in a moment.",
                follower: "Connected to the owner tab",
                connecting: "Connecting to the owner tab…",
                leader: "Owner tab · other tabs connected: ",
                leader_title: "This tab runs the workspace and saves it; other tabs of it send \
                           their commands here.",
                follower_title:
                    "Another tab runs this workspace and saves it: commands typed here \
                             run there. If it closes, this tab takes over.",
            },
            Lang::Zh => &TabStrings {
                lost: "错误：运行此工作区的标签页在回复前关闭了。此命令可能已执行，也可能没有：\
                   再次执行前请先检查。",
                promoted: "运行此工作区的标签页已关闭，现在由本标签页运行。此客户端已重新连接：\
                       它的订阅、阻塞中的命令、事务和所选数据库都已失效。",
                moved: "运行此工作区的标签页已关闭，现在由另一个标签页运行。此客户端已重新连接：\
                    它的订阅、阻塞中的命令、事务和所选数据库都已失效。",
                not_connected: "错误：尚未连接到运行此工作区的标签页，请稍后再试。",
                follower: "已连接到主标签页",
                connecting: "正在连接主标签页…",
                leader: "主标签页 · 已连接的其他标签页：",
                leader_title: "本标签页运行并保存此工作区；它的其他标签页把命令发送到这里。",
                follower_title: "另一个标签页运行并保存此工作区：在这里输入的命令在那里执行。\
                             它关闭时，本标签页接管。",
            },
        }
    }
}

// moved from ui/share_view.rs

/// The share box and the page of a share or Try-it link.
#[derive(Debug)]
pub struct ShareStrings {
    /// The share box: before the number of commands.
    pub link_before: &'static str,
    /// The share box: between the counts.
    pub link_commands: &'static str,
    /// The share box: after the number of characters.
    pub link_chars: &'static str,
    /// The Copy button.
    pub copy: &'static str,
    /// After a copy.
    pub copied: &'static str,
    /// When the copy failed.
    pub copy_failed: &'static str,
    /// Warning under a long link.
    pub long_link: &'static str,
    /// The Share button.
    pub share: &'static str,
    /// Heading: a Try-it link that cannot be read.
    pub try_unreadable: &'static str,
    /// Heading: a share link that cannot be read.
    pub share_unreadable: &'static str,
    /// Back to the workbench.
    pub back: &'static str,
    /// Heading: the commands of a Try-it link.
    pub try_heading: &'static str,
    /// Heading: a shared session.
    pub share_heading: &'static str,
    /// Before the list of commands.
    pub nothing_ran: &'static str,
    /// After the number of commands that rebuild the dataset.
    pub dataset_first: &'static str,
    /// After a cut list.
    pub and_more: &'static str,
    /// Run, into an empty workspace.
    pub run: &'static str,
    /// Run again, in the link's own workspace.
    pub run_again: &'static str,
    /// Open in a fresh workspace.
    pub open_fresh: &'static str,
    /// Cancel.
    pub cancel: &'static str,
    /// Why an autorun link waits.
    pub waits: &'static str,
    /// Why the link opens in a workspace of its own.
    pub other_workspace: &'static str,
}

const SHARE_EN: ShareStrings = ShareStrings {
    link_before: "Link to this session (",
    link_commands: " commands, ",
    link_chars: " characters)",
    copy: "Copy",
    copied: "Copied.",
    copy_failed: "Could not copy: select the link and press Ctrl+C.",
    long_link: "This link is long: some chat and mail apps cut links of more than a few thousand characters.",
    share: "Share",
    try_unreadable: "This Try-it link cannot be opened",
    share_unreadable: "This share link cannot be opened",
    back: "Back to the workbench",
    try_heading: "Commands from a Try-it link",
    share_heading: "A shared kvlab session",
    nothing_ran: "Nothing has run yet. These commands will run, in order, as if typed:",
    dataset_first: " commands rebuild a dataset first.",
    and_more: "… and more.",
    run: "Run them",
    run_again: "Run them again here",
    open_fresh: "Open in a fresh workspace",
    cancel: "Cancel",
    waits: "This link has run in this workspace before, so it waits for you this time.",
    other_workspace: "This workspace already holds data, so the link opens in a workspace of its own.",
};

const SHARE_ZH: ShareStrings = ShareStrings {
    link_before: "本次会话的链接（",
    link_commands: " 条命令，",
    link_chars: " 个字符）",
    copy: "复制",
    copied: "已复制。",
    copy_failed: "无法复制：请选中链接后按 Ctrl+C。",
    long_link: "链接较长：有些聊天和邮件应用会截断超过几千个字符的链接。",
    share: "分享",
    try_unreadable: "无法打开这个“试一试”链接",
    share_unreadable: "无法打开这个分享链接",
    back: "返回工作台",
    try_heading: "来自“试一试”链接的命令",
    share_heading: "分享的 kvlab 会话",
    nothing_ran: "尚未执行任何命令。以下命令将按顺序执行，如同手动输入：",
    dataset_first: " 条命令先重建数据集。",
    and_more: "……以及更多。",
    run: "执行",
    run_again: "在此再次执行",
    open_fresh: "在新工作区中打开",
    cancel: "取消",
    waits: "这个链接之前已在本工作区执行过，因此这次等你确认后再执行。",
    other_workspace: "当前工作区已有数据，因此链接会在单独的工作区中打开。",
};

impl Lang {
    /// The share box's and share pages' texts in this language.
    pub fn share(self) -> &'static ShareStrings {
        match self {
            Lang::En => &SHARE_EN,
            Lang::Zh => &SHARE_ZH,
        }
    }
}

/// Why a share link cannot be opened, in the UI language.
pub fn share_error_text(e: &crate::share::ShareError, lang: Lang) -> String {
    match (lang, e) {
        (Lang::En, e) => e.to_string(),
        (Lang::Zh, crate::share::ShareError::Encoding) => {
            "链接已损坏（不是 base64url 编码）".to_string()
        }
        (Lang::Zh, crate::share::ShareError::Version(v)) => {
            format!("该链接由更新版本的 kvlab 生成（格式 {v}）；请刷新页面以更新")
        }
        (Lang::Zh, crate::share::ShareError::Damaged) => {
            "链接已损坏：有一部分缺失或被改动".to_string()
        }
        (Lang::Zh, crate::share::ShareError::Compression) => "链接已损坏或过大".to_string(),
        (Lang::Zh, crate::share::ShareError::Format) => "该链接中没有 kvlab 会话".to_string(),
        (Lang::Zh, crate::share::ShareError::Commands) => "该链接中没有命令列表".to_string(),
    }
}

// moved from ui/app.rs

/// Embed mode's bar.
#[derive(Debug)]
pub struct EmbedStrings {
    /// The bar's title.
    pub title: &'static str,
    /// The Reset button.
    pub reset: &'static str,
    /// The link to the full app.
    pub open_full: &'static str,
    /// The setup commands' disclosure.
    pub setup: &'static str,
}

const EMBED_EN: EmbedStrings = EmbedStrings {
    title: "kvlab console",
    reset: "Reset",
    open_full: "Open in kvlab",
    setup: "Setup commands (read-only)",
};

const EMBED_ZH: EmbedStrings = EmbedStrings {
    title: "kvlab 控制台",
    reset: "重置",
    open_full: "在 kvlab 中打开",
    setup: "预置命令（只读）",
};

impl Lang {
    /// Embed mode's texts in this language.
    pub fn embed(self) -> &'static EmbedStrings {
        match self {
            Lang::En => &EMBED_EN,
            Lang::Zh => &EMBED_ZH,
        }
    }
}

// moved from ui/components/workspaces.rs

/// The manager's texts in one language.
pub struct WorkspaceStrings {
    /// In English: “Workspaces”.
    pub open: &'static str,
    /// In English: “Workspaces”.
    pub title: &'static str,
    /// In English: “Close”.
    pub close: &'static str,
    /// In English: “current”.
    pub current: &'static str,
    /// In English: “Tutorial embeds”.
    pub embeds: &'static str,
    /// In English: “Keys”.
    pub keys: &'static str,
    /// In English: “Create”.
    pub create: &'static str,
    /// In English: “New workspace name”.
    pub new_name: &'static str,
    /// In English: “Open”.
    pub switch: &'static str,
    /// In English: “Rename”.
    pub rename: &'static str,
    /// In English: “New name”.
    pub rename_to: &'static str,
    /// In English: “Reset”.
    pub reset: &'static str,
    /// In English: “Delete”.
    pub delete: &'static str,
    /// In English: “Empty workspace “{}”? Its keys are deleted.”.
    pub confirm_reset: &'static str,
    /// In English: “Delete workspace “{}” and everything in it?”.
    pub confirm_delete: &'static str,
    /// In English: “Yes”.
    pub yes: &'static str,
    /// In English: “Cancel”.
    pub cancel: &'static str,
    /// In English: “Export”.
    pub export: &'static str,
    /// In English: “Import a file…”.
    pub import: &'static str,
    /// In English: “JSON export, redis-cli command file or RESP. Existing key…”.
    pub import_hint: &'static str,
    /// In English: “A name has 1 to 64 characters.”.
    pub bad_length: &'static str,
    /// In English: “Use letters, digits, “-”, “_” and “.” only.”.
    pub bad_chars: &'static str,
    /// In English: “Names starting with “embed-” belong to tutorial embeds.”.
    pub bad_embed: &'static str,
    /// In English: “A workspace of that name exists.”.
    pub exists: &'static str,
    /// In English: “That workspace is open in another tab; close it there first.”.
    pub busy: &'static str,
    /// In English: “It did not work”.
    pub failed: &'static str,
    /// In English: “Created “{}”.”.
    pub created: &'static str,
    /// In English: “Emptied “{}”.”.
    pub reset_done: &'static str,
    /// In English: “Deleted “{}”.”.
    pub deleted: &'static str,
    /// In English: “Imported {} keys.”.
    pub imported: &'static str,
    /// In English: “{} already expired, skipped.”.
    pub skipped_expired: &'static str,
    /// In English: “{} already here, kept as they were.”.
    pub skipped_existing: &'static str,
    /// In English: “Nothing imported”.
    pub import_failed: &'static str,
    /// In English: “”.
    pub import_follower: &'static str,
    /// In English: “Working…”.
    pub working: &'static str,
}

const WORKSPACES_EN: WorkspaceStrings = WorkspaceStrings {
    open: "Workspaces",
    title: "Workspaces",
    close: "Close",
    current: "current",
    embeds: "Tutorial embeds",
    keys: "Keys",
    create: "Create",
    new_name: "New workspace name",
    switch: "Open",
    rename: "Rename",
    rename_to: "New name",
    reset: "Reset",
    delete: "Delete",
    confirm_reset: "Empty workspace “{}”? Its keys are deleted.",
    confirm_delete: "Delete workspace “{}” and everything in it?",
    yes: "Yes",
    cancel: "Cancel",
    export: "Export",
    import: "Import a file…",
    import_hint: "JSON export, redis-cli command file or RESP. Existing keys are kept.",
    bad_length: "A name has 1 to 64 characters.",
    bad_chars: "Use letters, digits, “-”, “_” and “.” only.",
    bad_embed: "Names starting with “embed-” belong to tutorial embeds.",
    exists: "A workspace of that name exists.",
    busy: "That workspace is open in another tab; close it there first.",
    failed: "It did not work",
    created: "Created “{}”.",
    reset_done: "Emptied “{}”.",
    deleted: "Deleted “{}”.",
    imported: "Imported {} keys.",
    skipped_expired: "{} already expired, skipped.",
    skipped_existing: "{} already here, kept as they were.",
    import_failed: "Nothing imported",
    import_follower:
        "Nothing imported: this workspace runs in another tab. Import there, or close that tab.",
    working: "Working…",
};

const WORKSPACES_ZH: WorkspaceStrings = WorkspaceStrings {
    open: "工作区",
    title: "工作区",
    close: "关闭",
    current: "当前",
    embeds: "教程嵌入",
    keys: "键",
    create: "新建",
    new_name: "新工作区名称",
    switch: "打开",
    rename: "重命名",
    rename_to: "新名称",
    reset: "重置",
    delete: "删除",
    confirm_reset: "清空工作区“{}”？其中的键将被删除。",
    confirm_delete: "删除工作区“{}”及其全部数据？",
    yes: "确定",
    cancel: "取消",
    export: "导出",
    import: "导入文件…",
    import_hint: "JSON 导出、redis-cli 命令文件或 RESP。已有的键保持不变。",
    bad_length: "名称长度为 1 到 64 个字符。",
    bad_chars: "只能使用字母、数字、“-”、“_”和“.”。",
    bad_embed: "以“embed-”开头的名称留给教程嵌入使用。",
    exists: "已存在同名工作区。",
    busy: "该工作区已在另一个标签页中打开，请先在那里关闭。",
    failed: "操作失败",
    created: "已创建“{}”。",
    reset_done: "已清空“{}”。",
    deleted: "已删除“{}”。",
    imported: "已导入 {} 个键。",
    skipped_expired: "{} 个已过期，已跳过。",
    skipped_existing: "{} 个已存在，保持原样。",
    import_failed: "未导入任何数据",
    import_follower: "未导入：这个工作区由另一个标签页运行。请在那个标签页导入，或先关闭它。",
    working: "处理中…",
};

impl Lang {
    /// The workspace manager's texts in this language.
    pub fn workspaces(self) -> &'static WorkspaceStrings {
        match self {
            Lang::En => &WORKSPACES_EN,
            Lang::Zh => &WORKSPACES_ZH,
        }
    }
}

// moved from persist/mod.rs and ui/services/persist.rs

/// The persistence banner: why writes are not saved, and damage found.
#[derive(Debug)]
pub struct PersistStrings {
    /// Browser storage unavailable: kvlab works in memory (`{}` is the browser's reason).
    pub memory: &'static str,
    /// The workspace was not loaded (`{}`: why).
    pub refused: &'static str,
    /// Another tab runs and saves the workspace.
    pub other_tab: &'static str,
    /// Saving failed (`{}`: the browser's reason).
    pub write_failed: &'static str,
    /// Damaged data found (`{}`: what), everything before it recovered.
    pub damaged: &'static str,
}

const PERSIST_EN: PersistStrings = PersistStrings {
    memory: "Browser storage is unavailable ({}): kvlab works in memory and nothing \
                 will be saved when you close this page.",
    refused: "This workspace was not loaded: {}. Working in memory; nothing will be saved.",
    other_tab: "This workspace is open in another tab, which runs and saves it: commands typed \
                 here run there and are saved. If that tab closes, this one takes over.",
    write_failed: "Saving failed ({}): your latest changes are kept in memory only. Free \
                 some space or export the workspace; what was saved before is intact.",
    damaged: "Damaged data found: {}. Everything saved before it was recovered.",
};

const PERSIST_ZH: PersistStrings = PersistStrings {
    memory: "浏览器存储不可用（{}）：kvlab 仅在内存中运行，关闭此页面后不会保留任何数据。",
    refused: "未加载此工作区：{}。当前仅在内存中运行，不会保存任何数据。",
    other_tab: "此工作区已在另一个标签页中打开，由那个标签页运行并保存：在这里输入的命令会在那里运行并保存。那个标签页关闭后，由这个标签页接管。",
    write_failed: "保存失败（{}）：最近的更改只保留在内存中。请释放存储空间或导出工作区；\
                 之前已保存的数据完好无损。",
    damaged: "发现损坏的数据：{}。在它之前保存的所有数据都已恢复。",
};

impl Lang {
    /// The persistence banner's texts in this language.
    pub fn persist(self) -> &'static PersistStrings {
        match self {
            Lang::En => &PERSIST_EN,
            Lang::Zh => &PERSIST_ZH,
        }
    }
}

// moved from app/console.rs

/// The console's `HELP` built-in (redis-cli's own texts, and their Chinese).
#[derive(Debug)]
pub struct HelpStrings {
    /// A help block's labels: summary, complexity, since, group.
    pub labels: [&'static str; 4],
    /// `HELP` with no topic.
    pub intro: &'static str,
    /// `HELP` of an unknown topic (`{}`: the topic).
    pub no_help: &'static str,
}

const HELP_EN: HelpStrings = HelpStrings {
    labels: ["summary:", "complexity:", "since:", "group:"],
    intro: "redis-cli 7.0.15 (kvlab)\nTo get help about Redis commands type:\n      \"help @<group>\" to get a list of commands in <group>\n      \"help <command>\" for help on <command>\n      \"help <tab>\" to get a list of possible help topics\n      \"clear\" or Ctrl+L to clear the screen",
    no_help: "No help for '{}'. Try \"help @<group>\", e.g. help @list",
};

const HELP_ZH: HelpStrings = HelpStrings {
    labels: ["概要：", "复杂度：", "起始版本：", "分组："],
    intro: "redis-cli 7.0.15 (kvlab)\n获取 Redis 命令的帮助：\n      \"help @<分组>\" 列出 <分组> 中的命令\n      \"help <命令>\" 查看 <命令> 的帮助\n      \"help <Tab>\" 补全可用的帮助主题\n      \"clear\" 或 Ctrl+L 清屏",
    no_help: "没有 '{}' 的帮助。试试 \"help @<分组>\"，例如 help @list",
};

impl Lang {
    /// The `HELP` built-in's texts in this language.
    pub fn help(self) -> &'static HelpStrings {
        match self {
            Lang::En => &HELP_EN,
            Lang::Zh => &HELP_ZH,
        }
    }
}
