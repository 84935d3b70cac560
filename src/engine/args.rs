//! Argument parsing, written once: a cursor over a command's arguments. The number parsers
//! it uses live in [`super::num`] and are re-exported here for the handlers.

use super::error::{CmdResult, Error};
pub use super::num::{c_bytes, parse_f64, parse_i64};

/// A cursor over the arguments of one command, positioned after the command name (and after
/// the subcommand name for container commands).
#[derive(Debug)]
pub struct Args {
    argv: Vec<Vec<u8>>,
    pos: usize,
}

impl Args {
    /// A cursor over `argv` starting at index `pos`.
    pub fn new(argv: Vec<Vec<u8>>, pos: usize) -> Args {
        Args { argv, pos }
    }

    /// All arguments, including the command name.
    pub fn argv(&self) -> &[Vec<u8>] {
        &self.argv
    }

    /// Takes the whole argument vector back (for propagation).
    pub fn into_argv(self) -> Vec<Vec<u8>> {
        self.argv
    }

    /// The command name as sent, lowercased.
    pub fn name(&self) -> String {
        String::from_utf8_lossy(&self.argv[0]).to_ascii_lowercase()
    }

    /// Number of arguments not yet consumed.
    pub fn remaining(&self) -> usize {
        self.argv.len() - self.pos
    }

    /// True when every argument was consumed.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The current position (index into [`Args::argv`]).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The next argument without consuming it.
    pub fn peek(&self) -> Option<&[u8]> {
        self.argv.get(self.pos).map(|v| v.as_slice())
    }

    /// Consumes the next argument. Arity has been checked centrally, so a handler that asks
    /// for an argument its arity guarantees always gets one; past the end it gets a syntax
    /// error rather than a panic.
    pub fn next_bytes(&mut self) -> CmdResult<&[u8]> {
        match self.argv.get(self.pos) {
            Some(v) => {
                self.pos += 1;
                Ok(v.as_slice())
            }
            None => Err(Error::Syntax),
        }
    }

    /// Consumes the next argument and every one after it: the next (a key, say) and the rest,
    /// both borrowed. For a handler that reads its key and then its other arguments without
    /// copying the key; a syntax error past the end, as [`Args::next_bytes`].
    pub fn split_next(&mut self) -> CmdResult<(&[u8], &[Vec<u8>])> {
        let pos = self.pos;
        self.pos = self.argv.len();
        match self.argv.get(pos..).and_then(<[Vec<u8>]>::split_first) {
            Some((next, rest)) => Ok((next.as_slice(), rest)),
            None => Err(Error::Syntax),
        }
    }

    /// Consumes the next argument as an owned copy. The argument vector itself stays intact:
    /// it is the command's replayable effect unless the handler propagates something else.
    pub fn next_owned(&mut self) -> CmdResult<Vec<u8>> {
        self.next_bytes().map(<[u8]>::to_vec)
    }

    /// Consumes the next argument as an `i64` (`ERR value is not an integer or out of range`).
    pub fn next_i64(&mut self) -> CmdResult<i64> {
        parse_i64(self.next_bytes()?).ok_or(Error::NotInteger)
    }

    /// Consumes the next argument as an `f64` (`ERR value is not a valid float`).
    pub fn next_f64(&mut self) -> CmdResult<f64> {
        parse_f64(self.next_bytes()?).ok_or(Error::NotFloat)
    }

    /// Consumes the next argument if it equals `word`, ignoring ASCII case.
    pub fn eat(&mut self, word: &str) -> bool {
        if self
            .peek()
            .is_some_and(|a| a.eq_ignore_ascii_case(word.as_bytes()))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes the next argument and returns it uppercased as text, for option keywords.
    pub fn next_keyword(&mut self) -> CmdResult<String> {
        Ok(String::from_utf8_lossy(self.next_bytes()?).to_ascii_uppercase())
    }

    /// The unconsumed arguments, consuming them all.
    pub fn rest(&mut self) -> Vec<Vec<u8>> {
        let out = self.argv[self.pos..].to_vec();
        self.pos = self.argv.len();
        out
    }

    /// Fails with a syntax error if arguments are left over.
    pub fn finish(&self) -> CmdResult<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(Error::Syntax)
        }
    }
}

/// Parses a glob-free, case-insensitive keyword.
pub fn eq_kw(arg: &[u8], word: &str) -> bool {
    arg.eq_ignore_ascii_case(word.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str], pos: usize) -> Args {
        Args::new(words.iter().map(|w| w.as_bytes().to_vec()).collect(), pos)
    }

    #[test]
    fn split_next_borrows_the_next_argument_and_the_rest() {
        let mut a = args(&["lpush", "k", "x", "y"], 1);
        let (key, rest) = a.split_next().unwrap();
        assert_eq!(key, b"k");
        assert_eq!(rest, [b"x".to_vec(), b"y".to_vec()]);
        assert!(a.is_empty(), "everything was handed out");
        assert!(matches!(a.split_next(), Err(Error::Syntax)));
        let mut last = args(&["lpop", "k"], 1);
        assert_eq!(last.split_next().unwrap(), (&b"k"[..], &[][..]));
    }
}
