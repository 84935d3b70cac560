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
    /// Made by a newer kvlab.
    Version(u8),
    /// Not valid DEFLATE data, or larger than [`MAX_TEXT`].
    Compression,
    /// The text inside is not what kvlab writes.
    Format,
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
            ShareError::Compression => f.write_str("the link is damaged or too large"),
            ShareError::Format => f.write_str("the link does not hold a kvlab session"),
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
        return Err(ShareError::Version(version));
    }
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
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode([9u8, 1, 2])),
            Err(ShareError::Version(9))
        );
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
    fn percent_decoding_never_panics() {
        for s in ["%", "%4", "%zz", "%e4%b8%ad", "a+b", "%E4%B8", "ü%41"] {
            let _ = percent_decode(s);
        }
        assert_eq!(percent_decode("%e4%b8%ad+x"), "中 x");
    }
}
