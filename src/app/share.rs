//! Share links and Try-it links: the payloads of the `#/share` and `#/try` routes
//! ([`super::route`]) — plain data, no browser APIs, so the host tests cover them.
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

/// A short stable name for a text (8 hex digits of its CRC-32), for naming the fresh
/// workspace a share link opens in.
pub fn crc_name(text: &str) -> String {
    format!("{:08x}", crate::engine::snapshot::crc32(text.as_bytes()))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A session of `n` commands like a learner's (`route.rs` measures its links).
    pub(crate) fn session(n: usize) -> Shared {
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
        // As a route: `route::tests::share_links_round_trip`.
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
}
