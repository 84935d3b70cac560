//! The app's URL fragment routes: every route parsed and written in one place — plain
//! data, no browser APIs, so the host tests cover them. The browser reads and writes the
//! fragment only through `ui::services::location`.
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
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use super::share::{decode, decode_try, encode, encode_try, ShareError, Shared};

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

    /// The name of the fresh workspace a share or Try-it link at `fragment` opens in:
    /// `shared-` and the CRC of the fragment without `autorun`, so that a link with and
    /// without it share one.
    pub fn link_workspace(fragment: &str) -> String {
        format!(
            "shared-{}",
            super::share::crc_name(
                fragment
                    .replace("&autorun=true", "")
                    .replace("&autorun=1", "")
                    .as_str()
            )
        )
    }

    /// True for `#/walk…`: the walkthroughs' routes.
    pub fn is_walk(&self) -> bool {
        matches!(self, Route::Walk { .. })
    }
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
    use super::super::share::tests::session;
    use super::super::share::{LONG_LINK, MAX_TRY_LINES};
    use super::*;

    #[test]
    fn share_links_round_trip() {
        let s = Shared {
            dataset: vec!["SET a 1".into(), "PEXPIREAT a 99999999999999".into()],
            commands: vec![
                "GET a".into(),
                "SET \"<script>alert(1)</script>\" \"\\xff\"".into(),
            ],
        };
        let route = Route::Share(Ok(s.clone()));
        assert_eq!(Route::parse(&format!("#{}", route.fragment())), route);
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

    #[test]
    fn link_workspaces_ignore_autorun() {
        let plain = Route::link_workspace("#/try?commands=WyJQSU5HIl0");
        assert!(plain.starts_with("shared-") && plain.len() == 15, "{plain}");
        assert_eq!(
            Route::link_workspace("#/try?commands=WyJQSU5HIl0&autorun=true"),
            plain
        );
        assert_eq!(
            Route::link_workspace("#/try?commands=WyJQSU5HIl0&autorun=1"),
            plain
        );
        assert_ne!(Route::link_workspace("#/try?commands=WyJQSU5HIl1"), plain);
        assert!(Route::parse("#/walk").is_walk());
        assert!(Route::parse("#/walk/login/2").is_walk());
        assert!(!Route::parse("#/share?s=x").is_walk());
    }
}
