//! The workspace manager's texts and the persistence banner's (`ui::components::workspaces`,
//! `persist`, `ui::services::persist`).

use super::Lang;

/// The manager's texts in one language.
#[derive(Debug)]
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
