//! The workbench's fixed texts: one [`Strings`] table per language ([`EN`], [`ZH`]), reached
//! through [`Lang::strings`](super::lang::Lang::strings).
//!
//! To add a text: a field in [`Strings`] with a `///` line saying where it shows, then its
//! value in both tables (a missing one is a compile error). A text that takes a value is
//! not a field but a variant of a message enum beside the tables (see [`super`]).

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
    /// A pane whose script runs on, in slices (it paused).
    pub blocked_script: &'static str,
    /// A pane whose command waits for another pane's script.
    pub blocked_busy: &'static str,
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

/// English workbench texts.
pub const EN: Strings = Strings {
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
    blocked_script: "running the script (Ctrl+C or SCRIPT KILL stops it)",
    blocked_busy: "waiting: another client's script runs (BUSY after busy-reply-threshold)",
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

/// Chinese workbench texts.
pub const ZH: Strings = Strings {
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
    blocked_script: "脚本运行中（Ctrl+C 或 SCRIPT KILL 可停止）",
    blocked_busy: "等待中：另一客户端的脚本正在运行（超过 busy-reply-threshold 后回复 BUSY）",
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
