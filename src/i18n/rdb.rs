//! The texts of importing and exporting a workspace as a Redis `dump.rdb`
//! (`ui::components::rdb_io`): the fixed ones ([`RdbStrings`]) and what is wrong with a
//! file ([`rdb_error_text`], from [`crate::engine::rdb::file::FileError`]).

use super::Lang;
use crate::engine::rdb::file::{FileError, Problem, NUM_DBS};

/// The fixed texts in one language.
#[derive(Debug)]
pub struct RdbStrings {
    /// In English: “dump.rdb”: the export button.
    pub export: &'static str,
    /// In English: “Save the workspace as a Redis dump.rdb…”: its title.
    pub export_title: &'static str,
    /// In English: “Import a dump.rdb…”.
    pub import: &'static str,
    /// In English: “A dump.rdb of Redis 7.0 or older (RDB 1–10)…”.
    pub hint: &'static str,
    /// In English: “Drop a dump.rdb to import it”: shown while a file is dragged over.
    pub drop: &'static str,
    /// In English: “Reading {}…”: `{}` the file name.
    pub reading: &'static str,
    /// In English: “{}% read, {} keys”: the share of the file's bytes read, keys so far.
    pub progress: &'static str,
    /// In English: “Nothing imported from {}”: `{}` the file name, before the reason.
    pub refused: &'static str,
    /// In English: “Imported {} keys from {}.”
    pub imported: &'static str,
    /// In English: “{} keys that exist here were kept.”
    pub kept: &'static str,
    /// In English: “{} keys had expired.”
    pub expired: &'static str,
    /// In English: “Function libraries: {}.”
    pub functions: &'static str,
    /// In English: “This workspace can't be saved as a dump.rdb: {}”.
    pub export_failed: &'static str,
}

const EN: RdbStrings = RdbStrings {
    export: "dump.rdb",
    export_title: "Save the workspace as a Redis dump.rdb (RDB 10, as Redis 7.0 writes it)",
    import: "Import a dump.rdb…",
    hint: "A dump.rdb of Redis 7.0 or older (RDB versions 1 to 10), also dropped anywhere on \
           the page. It is read and checked whole before anything changes; keys that exist \
           here are kept.",
    drop: "Drop a dump.rdb to import it",
    reading: "Reading {}…",
    progress: "{}% read, {} keys",
    refused: "Nothing imported from {}",
    imported: "Imported {} keys from {}.",
    kept: "{} keys that exist here were kept.",
    expired: "{} keys had expired.",
    functions: "Function libraries: {}.",
    export_failed: "This workspace can't be saved as a dump.rdb: {}",
};

const ZH: RdbStrings = RdbStrings {
    export: "dump.rdb",
    export_title: "把工作区保存为 Redis 的 dump.rdb（RDB 10，与 Redis 7.0 写出的相同）",
    import: "导入 dump.rdb…",
    hint: "Redis 7.0 或更早版本的 dump.rdb（RDB 版本 1 到 10），也可以拖放到页面任意位置。\
           文件会先完整读取并校验，之后才改动数据；这里已有的键保持不变。",
    drop: "拖放 dump.rdb 以导入",
    reading: "正在读取 {}…",
    progress: "已读取 {}%，{} 个键",
    refused: "未从 {} 导入任何数据",
    imported: "已从 {1} 导入 {0} 个键。",
    kept: "{} 个这里已有的键保持不变。",
    expired: "{} 个键已过期。",
    functions: "函数库：{}。",
    export_failed: "无法把这个工作区保存为 dump.rdb：{}",
};

impl Lang {
    /// The dump.rdb texts in this language.
    pub fn rdb(self) -> &'static RdbStrings {
        match self {
            Lang::En => &EN,
            Lang::Zh => &ZH,
        }
    }
}

/// What is wrong with a file, where, in `lang`.
pub fn rdb_error_text(e: &FileError, lang: Lang) -> String {
    if lang == Lang::En {
        return e.to_string();
    }
    let what = match &e.problem {
        Problem::Signature => "不是 RDB 文件（开头不是 REDIS 和版本号）".to_string(),
        Problem::Version(v) => format!(
            "不支持 RDB 格式版本 {v}（支持版本 1 到 10，与 Redis 7.0 相同；更新的 Redis 写出的文件无法读取）"
        ),
        Problem::Truncated => "文件在一条记录中间结束（可能被截断）".to_string(),
        Problem::UnknownType(t) => format!("未知的记录类型 {t}"),
        Problem::BadRecord(what) => format!("记录已损坏：{what}"),
        Problem::BadValue(t) => format!("RDB 类型 {t} 的值已损坏"),
        Problem::DbIndex(i) => format!("数据库 {i} 不存在（共有 {NUM_DBS} 个）"),
        Problem::Duplicate => "键重复".to_string(),
        Problem::BadFunction(why) => format!("函数库已损坏：{why}"),
        Problem::ModuleValue(m) => format!("无法加载模块数据：没有匹配的模块类型“{m}”"),
        Problem::ModuleAux(m) => format!("无法加载模块 AUX 数据：没有匹配的模块“{m}”"),
        Problem::Checksum { stored, computed } => {
            format!("RDB 校验和错误：文件中为 {stored:x}，按内容计算为 {computed:x}")
        }
        Problem::Trailing(n) => format!("数据结束后还有 {n} 个多余字节"),
    };
    let mut out = format!("{what}，位于第 {} 字节", e.offset);
    if let Some((db, key)) = &e.key {
        out.push_str(&format!(
            "（数据库 {db} 的键“{}”）",
            String::from_utf8_lossy(key)
        ));
    }
    out
}

/// Fills `{}` (or `{0}`, `{1}`, …) in `template` with `args` in order.
pub fn fill(template: &str, args: &[&dyn std::fmt::Display]) -> String {
    let mut out = template.to_string();
    for (i, a) in args.iter().enumerate() {
        let numbered = format!("{{{i}}}");
        if out.contains(&numbered) {
            out = out.replace(&numbered, &a.to_string());
        } else {
            out = out.replacen("{}", &a.to_string(), 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_in_both_languages() {
        let e = FileError {
            problem: Problem::Version(11),
            offset: 0,
            key: None,
        };
        assert!(rdb_error_text(&e, Lang::En).contains("version 11"));
        assert!(rdb_error_text(&e, Lang::Zh).contains("版本 11"));
        let e = FileError {
            problem: Problem::Duplicate,
            offset: 40,
            key: Some((2, b"k".to_vec())),
        };
        assert_eq!(
            rdb_error_text(&e, Lang::Zh),
            "键重复，位于第 40 字节（数据库 2 的键“k”）"
        );
        assert_eq!(
            fill(Lang::Zh.rdb().imported, &[&3, &"a.rdb"]),
            "已从 a.rdb 导入 3 个键。"
        );
        assert_eq!(
            fill(Lang::En.rdb().imported, &[&3, &"a.rdb"]),
            "Imported 3 keys from a.rdb."
        );
    }
}
