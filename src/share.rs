//! Share links and the app's URL fragment routes — plain data, no browser APIs, so the host
//! tests cover them.
//!
//! # Routes
//! Everything the app reads from its address is in the fragment (never sent to a server):
//!
//! | fragment | opens |
//! | --- | --- |
//! | (empty), `#/` | the console |
//! | `#/walk`, `#/walk/<id>`, `#/walk/<id>/<step>` | the walkthrough list, one walkthrough, a step of it |
//! | `#/embed?ws=…&setup=…&walk=…&step=…&lang=…&then=1` | embed mode (see `www/embed.js`) |
//! | `#/share?s=…` | a shared session: shown first, replayed into a fresh workspace on request |
//! | `#/try?commands=…&autorun=true` | a Try-it link as redis.io writes them (see below): shown, and run at once only with `autorun` |
//!
//! # Try-it links
//! redis.io's documentation opens a block of commands as `…?commands=<c>&autorun=true`,
//! where `c` is the base64url (or plain base64; padding optional) of a JSON array of
//! strings, one command line each (a string holding several lines counts as several).
//! kvlab accepts the same parameters under `#/try`, so a page that writes such a link can
//! point it at a kvlab build. The commands are listed like a share link's, and run — into
//! a fresh workspace when the current one holds data — when the learner asks, or at once
//! with `autorun=true` (or `1`). At most [`MAX_TRY_LINES`] lines are taken.
//!
//! # Share payload
//! `s` is base64url (no padding) of one version byte (1) followed by the raw DEFLATE of a
//! UTF-8 text: a header line `kvlab-share <n>`, then `n` lines that rebuild a dataset (as
//! an export writes them: redis-cli command lines), then the session's command lines. A
//! redis-cli line never holds a raw newline (binary bytes are written `"\xHH"`), so lines
//! are unambiguous. Decoding refuses more than [`MAX_TEXT`] bytes of text, so a hostile
//! link cannot make the page inflate gigabytes.
//!
//! Sizes (measured by the `link_lengths` test, `cargo test --lib link_lengths -- --nocapture`):
//! a 20-command session is 220 characters of fragment, 100 commands 540 (repetitive
//! commands compress well), and a 1,000-key dataset of short strings 6,249. Browsers accept
//! fragments far longer (Chromium: 2 MB URLs), but chat apps and mail clients cut links at
//! a few thousand characters, so the app warns above [`LONG_LINK`] characters.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// Format version of the share payload.
pub const VERSION: u8 = 1;
/// The most text a share payload may inflate to (1 MiB).
pub const MAX_TEXT: usize = 1 << 20;
/// Above this many characters a link may be cut by the apps it is pasted into.
pub const LONG_LINK: usize = 8_000;

/// A shared session: dataset lines (may be empty), then the commands to replay.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shared {
    /// redis-cli lines that rebuild the dataset first (an export), possibly none.
    pub dataset: Vec<String>,
    /// The session's command lines, in order.
    pub commands: Vec<String>,
}

/// Why a share payload could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareError {
    /// Not base64url.
    Encoding,
    /// Made by a newer kvlab: a later format number whose payload still inflates.
    Version(u8),
    /// Part of the link is missing or was changed (any other format byte).
    Damaged,
    /// Not valid DEFLATE data, or larger than [`MAX_TEXT`].
    Compression,
    /// The text inside is not what kvlab writes.
    Format,
    /// A Try-it link whose text is not a JSON array of command lines.
    Commands,
}

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShareError::Encoding => f.write_str("the link is damaged (not base64url)"),
            ShareError::Version(v) => {
                write!(
                    f,
                    "the link was made by a newer kvlab (format {v}); reload to update"
                )
            }
            ShareError::Damaged => {
                f.write_str("the link is damaged: part of it is missing or was changed")
            }
            ShareError::Compression => f.write_str("the link is damaged or too large"),
            ShareError::Format => f.write_str("the link does not hold a kvlab session"),
            ShareError::Commands => f.write_str("the link does not hold a list of commands"),
        }
    }
}

impl std::error::Error for ShareError {}

/// Encodes a session as the `s` parameter of a `#/share` link.
pub fn encode(shared: &Shared) -> String {
    let mut text = format!("kvlab-share {}\n", shared.dataset.len());
    for line in shared.dataset.iter().chain(&shared.commands) {
        // Lines are single lines by construction; a stray newline would split one.
        text.push_str(&line.replace(['\n', '\r'], " "));
        text.push('\n');
    }
    let mut bytes = vec![VERSION];
    bytes.extend(miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9));
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes the `s` parameter of a `#/share` link.
///
/// # Errors
/// A [`ShareError`] saying what is wrong; nothing is partially decoded.
pub fn decode(s: &str) -> Result<Shared, ShareError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(s.trim().trim_end_matches('='))
        .map_err(|_| ShareError::Encoding)?;
    let (&version, body) = bytes.split_first().ok_or(ShareError::Encoding)?;
    if version != VERSION {
        // A damaged link is far likelier than a newer kvlab: call it newer only when the
        // format number is one a later kvlab could have written and the rest inflates to
        // something other than this format's text (a changed first character leaves the
        // rest a good version 1 payload).
        let newer = (VERSION + 1..=VERSION + 15).contains(&version)
            && matches!(read_v1(body), Err(ShareError::Format));
        return Err(if newer {
            ShareError::Version(version)
        } else {
            ShareError::Damaged
        });
    }
    read_v1(body)
}

/// The payload after the format byte, as format 1 writes it.
fn read_v1(body: &[u8]) -> Result<Shared, ShareError> {
    let text = miniz_oxide::inflate::decompress_to_vec_with_limit(body, MAX_TEXT)
        .map_err(|_| ShareError::Compression)?;
    let text = String::from_utf8(text).map_err(|_| ShareError::Format)?;
    let mut lines = text.lines();
    let n: usize = lines
        .next()
        .and_then(|h| h.strip_prefix("kvlab-share "))
        .and_then(|n| n.parse().ok())
        .ok_or(ShareError::Format)?;
    let all: Vec<String> = lines.map(str::to_string).collect();
    if n > all.len() {
        return Err(ShareError::Format);
    }
    let (dataset, commands) = all.split_at(n);
    Ok(Shared {
        dataset: dataset.to_vec(),
        commands: commands.to_vec(),
    })
}

/// Where the fragment of the app's address points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The console (the default).
    Console,
    /// The walkthrough list, or one walkthrough (at a step, 1-based).
    Walk {
        /// Walkthrough id, if one is open.
        id: Option<String>,
        /// Step, 1-based.
        step: Option<usize>,
    },
    /// Embed mode, inside a tutorial page's iframe.
    Embed(Embed),
    /// A shared session waiting to be confirmed.
    Share(Result<Shared, ShareError>),
    /// A Try-it link: its commands (as [`Shared::commands`]), and whether to run them at once.
    Try {
        /// The commands, or why the link could not be read.
        link: Result<Shared, ShareError>,
        /// `autorun=true`: run without asking (still into a fresh workspace if needed).
        autorun: bool,
    },
}

/// The options of embed mode.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Embed {
    /// Workspace name (embeds with the same name share data).
    pub workspace: String,
    /// Setup command lines, run read-only when the embed opens and on reset.
    pub setup: Vec<String>,
    /// A walkthrough to open instead of a bare console, and the step.
    pub walk: Option<(String, usize)>,
    /// `en` or `zh-CN` when the page asked for one.
    pub lang: Option<String>,
    /// Set by `embed.js` on a later embed of a page whose first embed on the same workspace
    /// has just set it up (`then=1`): this embed's setup runs too, after that one's, even
    /// though the workspace is no longer empty.
    pub then: bool,
}

/// The most setup lines an embed takes.
const MAX_SETUP_LINES: usize = 1_000;
/// The most command lines a Try-it link takes.
pub const MAX_TRY_LINES: usize = 1_000;

/// Reads the `commands` parameter of a Try-it link: base64url or base64 of a JSON array of
/// command lines.
///
/// # Errors
/// [`ShareError::Encoding`] when it is not base64 (or is larger than [`MAX_TEXT`]),
/// [`ShareError::Commands`] when the text is not a JSON array of strings in UTF-8.
pub fn decode_try(s: &str) -> Result<Shared, ShareError> {
    use crate::engine::json::{self, Kind};
    use base64::engine::general_purpose::STANDARD_NO_PAD;
    let s = s.trim().trim_end_matches('=');
    if s.len() > MAX_TEXT / 3 * 4 {
        return Err(ShareError::Encoding);
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(s)
        .or_else(|_| STANDARD_NO_PAD.decode(s))
        .map_err(|_| ShareError::Encoding)?;
    let doc = json::parse(&bytes).map_err(|_| ShareError::Commands)?;
    let Kind::Array(items) = doc.kind else {
        return Err(ShareError::Commands);
    };
    let mut commands = Vec::new();
    for item in items {
        let Kind::Str(text) = item.kind else {
            return Err(ShareError::Commands);
        };
        let text = String::from_utf8(text).map_err(|_| ShareError::Commands)?;
        commands.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
    }
    commands.truncate(MAX_TRY_LINES);
    Ok(Shared {
        dataset: Vec::new(),
        commands,
    })
}

/// The `commands` parameter of a Try-it link for these lines (the inverse of [`decode_try`]).
pub fn encode_try(commands: &[String]) -> String {
    let mut text = String::from("[");
    for (i, c) in commands.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        crate::engine::json::write_str(&mut text, c);
    }
    text.push(']');
    URL_SAFE_NO_PAD.encode(text)
}

impl Route {
    /// Reads a fragment (with or without its `#`). Unknown fragments open the console.
    pub fn parse(fragment: &str) -> Route {
        let f = fragment.strip_prefix('#').unwrap_or(fragment);
        let f = f.strip_prefix('/').unwrap_or(f);
        let (path, query) = f.split_once('?').unwrap_or((f, ""));
        let params = parse_query(query);
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let mut parts = path.split('/').filter(|p| !p.is_empty());
        match parts.next() {
            Some("walk") => {
                let id = parts.next().filter(|id| valid_id(id)).map(str::to_string);
                let step = parts
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&s| s >= 1);
                Route::Walk { id, step }
            }
            Some("embed") => {
                let workspace = param("ws")
                    .filter(|w| !w.is_empty() && w.len() <= 80)
                    .map(str::to_string)
                    .unwrap_or_else(|| "embed".to_string());
                let setup = param("setup")
                    .and_then(|s| URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).ok())
                    .and_then(|b| String::from_utf8(b).ok())
                    .map(|t| {
                        t.lines()
                            .map(str::trim)
                            .filter(|l| !l.is_empty())
                            .take(MAX_SETUP_LINES)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                let walk = param("walk").filter(|w| valid_id(w)).map(|w| {
                    let step = param("step").and_then(|s| s.parse().ok()).unwrap_or(1);
                    (w.to_string(), step.max(1))
                });
                let lang = param("lang")
                    .filter(|l| matches!(*l, "en" | "zh-CN"))
                    .map(str::to_string);
                Route::Embed(Embed {
                    workspace,
                    setup,
                    walk,
                    lang,
                    then: param("then") == Some("1"),
                })
            }
            Some("share") => Route::Share(decode(param("s").unwrap_or(""))),
            Some("try") => Route::Try {
                link: decode_try(param("commands").unwrap_or("")),
                autorun: matches!(param("autorun"), Some("true" | "1")),
            },
            _ => Route::Console,
        }
    }

    /// The fragment for this route (without `#`), the inverse of [`Route::parse`].
    pub fn fragment(&self) -> String {
        match self {
            Route::Console => "/".to_string(),
            Route::Walk { id: None, .. } => "/walk".to_string(),
            Route::Walk {
                id: Some(id),
                step: None,
            } => format!("/walk/{id}"),
            Route::Walk {
                id: Some(id),
                step: Some(s),
            } => format!("/walk/{id}/{s}"),
            Route::Embed(e) => {
                let mut q = vec![format!("ws={}", percent_encode(&e.workspace))];
                if !e.setup.is_empty() {
                    q.push(format!(
                        "setup={}",
                        URL_SAFE_NO_PAD.encode(e.setup.join("\n"))
                    ));
                }
                if let Some((w, s)) = &e.walk {
                    q.push(format!("walk={w}&step={s}"));
                }
                if let Some(l) = &e.lang {
                    q.push(format!("lang={l}"));
                }
                if e.then {
                    q.push("then=1".to_string());
                }
                format!("/embed?{}", q.join("&"))
            }
            Route::Share(Ok(s)) => format!("/share?s={}", encode(s)),
            Route::Share(Err(_)) => "/share".to_string(),
            Route::Try { link, autorun } => {
                let commands = link.as_ref().map_or(&[][..], |s| &s.commands[..]);
                let run = if *autorun { "&autorun=true" } else { "" };
                format!("/try?commands={}{run}", encode_try(commands))
            }
        }
    }
}

/// A short stable name for a text (8 hex digits of its CRC-32), for naming the fresh
/// workspace a share link opens in.
pub fn crc_name(text: &str) -> String {
    format!("{:08x}", crate::engine::snapshot::crc32(text.as_bytes()))
}

/// Walkthrough and workspace ids: short, and only `[A-Za-z0-9_-]`.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `a=1&b=x%20y` → pairs, percent-decoded (`+` is a space); malformed escapes stay as typed.
fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let hex = |b: Option<&u8>| b.and_then(|&b| (b as char).to_digit(16)).map(|d| d as u8);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => match (hex(b.get(i + 1)), hex(b.get(i + 2))) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(n: usize) -> Shared {
        Shared {
            dataset: Vec::new(),
            commands: (0..n)
                .map(|i| match i % 4 {
                    0 => format!("SET user:{i}:name \"user number {i}\""),
                    1 => format!("LPUSH login:latest {i}"),
                    2 => format!("ZINCRBY login:times 1 {i}"),
                    _ => format!("GET user:{}:name", i - 3),
                })
                .collect(),
        }
    }

    #[test]
    fn round_trip() {
        let s = Shared {
            dataset: vec!["SET a 1".into(), "PEXPIREAT a 99999999999999".into()],
            commands: vec![
                "GET a".into(),
                "SET \"<script>alert(1)</script>\" \"\\xff\"".into(),
            ],
        };
        assert_eq!(decode(&encode(&s)), Ok(s.clone()));
        assert_eq!(decode(&encode(&Shared::default())), Ok(Shared::default()));
        let route = Route::Share(Ok(s.clone()));
        assert_eq!(Route::parse(&format!("#{}", route.fragment())), route);
    }

    #[test]
    fn hostile_payloads_are_refused_cleanly() {
        assert_eq!(decode("!!!"), Err(ShareError::Encoding));
        assert_eq!(decode(""), Err(ShareError::Encoding));
        // A later format number with a payload that inflates: a newer kvlab made it.
        let mut newer = vec![2u8];
        newer.extend(miniz_oxide::deflate::compress_to_vec(
            b"kvlab-share/2 0\n",
            9,
        ));
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode(newer)),
            Err(ShareError::Version(2))
        );
        // Anything else in the format byte is damage, not a newer kvlab.
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode([9u8, 1, 2])),
            Err(ShareError::Damaged)
        );
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode([200u8, 1, 2])),
            Err(ShareError::Damaged)
        );
        // A real link with its first character changed, and one cut short.
        let link = encode(&session(20));
        let changed = format!("B{}", &link[1..]);
        assert_eq!(decode(&changed), Err(ShareError::Damaged));
        for cut in [
            link.len() / 2 / 4 * 4,
            link.len() / 2 / 4 * 4 + 1,
            link.len() - 1,
        ] {
            let e = decode(&link[..cut]).unwrap_err();
            assert!(e.to_string().contains("damaged"), "cut at {cut}: {e}");
        }
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode([1u8, 0xff, 0xff])),
            Err(ShareError::Compression)
        );
        // A bomb: 64 MiB of zeros compresses to ~64 KB; decoding stops at MAX_TEXT.
        let mut bomb = vec![VERSION];
        bomb.extend(miniz_oxide::deflate::compress_to_vec(
            &vec![b'a'; 64 << 20],
            9,
        ));
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode(bomb)),
            Err(ShareError::Compression)
        );
        let mut wrong = vec![VERSION];
        wrong.extend(miniz_oxide::deflate::compress_to_vec(
            b"kvlab-share 5\nGET a\n",
            9,
        ));
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode(wrong)),
            Err(ShareError::Format)
        );
    }

    #[test]
    fn link_lengths() {
        // The figures quoted in the module documentation.
        let len = |s: &Shared| Route::Share(Ok(s.clone())).fragment().len();
        eprintln!(
            "share link lengths: 20 commands {}, 100 commands {}",
            len(&session(20)),
            len(&session(100))
        );
        assert!(len(&session(20)) < 300, "{}", len(&session(20)));
        assert!(len(&session(100)) < 700, "{}", len(&session(100)));
        let dataset = Shared {
            dataset: (0..1000)
                .map(|i| format!("SET key:{i} value-{i}"))
                .collect(),
            commands: Vec::new(),
        };
        eprintln!("share link length: 1000-key dataset {}", len(&dataset));
        assert!(len(&dataset) < LONG_LINK, "{}", len(&dataset));
    }

    #[test]
    fn routes() {
        assert_eq!(Route::parse(""), Route::Console);
        assert_eq!(Route::parse("#/nonsense"), Route::Console);
        assert_eq!(
            Route::parse("#/walk/login/3"),
            Route::Walk {
                id: Some("login".into()),
                step: Some(3)
            }
        );
        assert_eq!(
            Route::parse("#/walk/<img>/0"),
            Route::Walk {
                id: None,
                step: None
            }
        );
        let Route::Embed(e) = Route::parse(
            "#/embed?ws=lesson%201&setup=UlBVU0ggcXVldWUgam9iOjE&walk=login&step=2&lang=zh-CN",
        ) else {
            panic!()
        };
        assert_eq!(e.workspace, "lesson 1");
        assert_eq!(e.setup, vec!["RPUSH queue job:1".to_string()]);
        assert_eq!(e.walk, Some(("login".into(), 2)));
        assert_eq!(e.lang.as_deref(), Some("zh-CN"));
        assert!(!e.then);
        let Route::Embed(e) = Route::parse("#/embed?ws=a&then=1") else {
            panic!()
        };
        assert!(e.then);
        assert_eq!(
            Route::parse(&format!("#{}", Route::Embed(e.clone()).fragment())),
            Route::Embed(e)
        );
        let Route::Embed(e) = Route::parse("#/embed?lang=<b>&setup=%%%&then=yes") else {
            panic!()
        };
        assert_eq!(e.lang, None);
        assert!(e.setup.is_empty());
        assert!(!e.then);
        assert_eq!(
            Route::parse(&format!("#{}", Route::Embed(e.clone()).fragment())),
            Route::Embed(e)
        );
    }

    #[test]
    fn try_links_as_redis_io_writes_them() {
        // `["SET foo bar", "GET foo"]`, base64url as redis.io's pages encode it.
        let c = URL_SAFE_NO_PAD.encode(r#"["SET foo bar","GET foo"]"#);
        let Route::Try { link, autorun } =
            Route::parse(&format!("#/try?commands={c}&autorun=true"))
        else {
            panic!()
        };
        assert!(autorun);
        assert_eq!(link.unwrap().commands, ["SET foo bar", "GET foo"]);
        // Plain base64 with padding, a string of several lines, no autorun.
        use base64::engine::general_purpose::STANDARD;
        let c = STANDARD.encode("[\"HSET h f \\\"a b\\\"\\nHGETALL h\", \"  \", \"名字\"]");
        assert!(c.contains('='), "{c}");
        let route = Route::parse(&format!("#/try?commands={}", percent_encode(&c)));
        let Route::Try { link, autorun } = &route else {
            panic!()
        };
        assert!(!autorun);
        assert_eq!(
            link.as_ref().unwrap().commands,
            ["HSET h f \"a b\"", "HGETALL h", "名字"]
        );
        // The fragment we write reads back the same.
        assert_eq!(Route::parse(&format!("#{}", route.fragment())), route);
        for bad in [
            "",
            "!!!",
            &URL_SAFE_NO_PAD.encode("{}"),
            &URL_SAFE_NO_PAD.encode("[1]"),
        ] {
            let Route::Try { link, .. } = Route::parse(&format!("#/try?commands={bad}")) else {
                panic!()
            };
            assert!(link.is_err(), "{bad}");
        }
        let many: Vec<String> = (0..5000).map(|i| format!("INCR n{i}")).collect();
        assert_eq!(
            decode_try(&encode_try(&many)).unwrap().commands.len(),
            MAX_TRY_LINES
        );
    }

    #[test]
    fn percent_decoding_never_panics() {
        for s in ["%", "%4", "%zz", "%e4%b8%ad", "a+b", "%E4%B8", "ü%41"] {
            let _ = percent_decode(s);
        }
        assert_eq!(percent_decode("%e4%b8%ad+x"), "中 x");
    }
}
