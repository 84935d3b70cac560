//! Every error the engine can reply with, each text written once.
//!
//! The texts are Redis 7.0's, byte for byte (see `createSharedObjects` in Redis's `server.c`
//! and the `addReplyError*` calls in the command files). Handlers return
//! `Err(Error::Variant)`; [`Error::to_reply`] turns it into the reply. A command that needs a
//! message Redis builds at run time uses one of the variants with fields.

use std::fmt;

use super::reply::Reply;

/// Result of a command handler or argument parser.
pub type CmdResult<T = Reply> = Result<T, Error>;

/// An error reply, with Redis's exact text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// `WRONGTYPE Operation against a key holding the wrong kind of value`
    WrongType,
    /// `CROSSSLOT Keys in request don't hash to the same slot` (cluster mode)
    CrossSlot,
    /// `ERR <command> is not allowed in cluster mode` (`SELECT`, `MOVE`, `SWAPDB`)
    NotInCluster(&'static str),
    /// `ERR This instance has cluster support disabled`
    ClusterDisabled,
    /// `ERR syntax error`
    Syntax,
    /// `ERR unknown subcommand or wrong number of arguments for '<sub>'. Try <CMD> HELP.`
    /// (Redis's `addReplySubcommandSyntaxError`; see [`Error::subcommand_syntax`])
    Subcommand(String, String),
    /// `NOAUTH Authentication required.`
    NoAuth,
    /// `NOAUTH HELLO must be called with the client already authenticated, …` (`HELLO`
    /// without `AUTH` from a client that must authenticate)
    HelloNoAuth,
    /// `WRONGPASS invalid username-password pair or user is disabled.`
    WrongPass,
    /// `ERR AUTH <password> called without any password configured for the default user. …`
    AuthNoPassword,
    /// `NOPERM this user has no permissions to run the '<cmd>' command` (ACL)
    NoPermCommand(String),
    /// `NOPERM this user has no permissions to access one of the keys used as arguments`
    NoPermKey,
    /// `NOPERM this user has no permissions to access one of the channels used as arguments`
    NoPermChannel,
    /// `ERR Error in ACL SETUSER modifier '<modifier>': <reason>` (reasons in
    /// [`crate::engine::acl::rules`])
    AclModifier(String, &'static str),
    /// `ERR timeout is not an integer or out of range` (millisecond timeouts)
    TimeoutNotInteger,
    /// `ERR timeout is negative`
    TimeoutNegative,
    /// `ERR no such key`
    NoSuchKey,
    /// `ERR No samples available for event '<event>'` (`LATENCY GRAPH` of an event the
    /// latency monitor has no samples of)
    NoLatencySamples(String),
    /// `ERR index out of range`
    IndexOutOfRange,
    /// `ERR value is not an integer or out of range`
    NotInteger,
    /// `ERR value is not a valid float`
    NotFloat,
    /// `ERR increment or decrement would overflow`
    Overflow,
    /// `ERR increment would produce NaN or Infinity`
    NanOrInfinity,
    /// `ERR value is out of range, must be positive`
    MustBePositive,
    /// `ERR hash value is not an integer`
    HashNotInteger,
    /// `ERR hash value is not a float`
    HashNotFloat,
    /// `ERR string exceeds maximum allowed size (proto-max-bulk-len)`
    StringTooLong,
    /// `ERR offset is out of range`
    OffsetOutOfRange,
    /// `ERR bit is not an integer or out of range`
    BitValue,
    /// `OOM command not allowed when used memory > 'maxmemory'.`: an allocation the command
    /// needed failed (a browser tab out of memory), answered as Redis answers a write over
    /// its memory limit instead of aborting.
    OutOfMemory,
    /// `NOTBUSY No scripts in execution right now.` (SCRIPT KILL, FUNCTION KILL)
    NotBusy,
    /// `NOREPLICAS Not enough good replicas to write.` (`min-replicas-to-write` set: kvlab
    /// has no replicas)
    NoReplicas,
    /// `ERR Number of keys can't be greater than number of args` (EVAL, FCALL)
    KeysOverArgs,
    /// `ERR Number of keys can't be negative` (EVAL, FCALL)
    KeysNegative,
    /// `ERR invalid cursor`
    InvalidCursor,
    /// `ERR bit offset is not an integer or out of range` (SETBIT, GETBIT, BITFIELD)
    BitOffset,
    /// `ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not
    /// supported but i64 is.`
    BitfieldType,
    /// `WRONGTYPE Key is not a valid HyperLogLog string value.`
    NotHll,
    /// `INVALIDOBJ Corrupted HLL object detected`
    HllCorrupt,
    /// `ERR DB index is out of range`
    DbIndexOutOfRange,
    /// `ERR source and destination objects are the same`
    SameObject,
    /// `ERR value is out of range, value must between <min> and <max>` (Redis's
    /// `getRangeLongFromObjectOrReply`, e.g. a database index beyond a C `int`).
    OutOfRangeBetween(i64, i64),
    /// `ERR invalid expire time in '<cmd>' command`
    InvalidExpireTime(String),
    /// `ERR wrong number of arguments for '<cmd>' command`
    WrongArity(String),
    /// `ERR RANK can't be zero: use 1 to start from the first match, …` (LPOS)
    RankZero,
    /// `ERR COUNT can't be negative` (LPOS)
    CountNegative,
    /// `ERR MAXLEN can't be negative` (LPOS)
    MaxlenNegative,
    /// `ERR count should be greater than 0` (LMPOP, ZMPOP and their blocking forms)
    CountNotPositive,
    /// `ERR numkeys should be greater than 0` (LMPOP, SINTERCARD, ZMPOP, ZINTERCARD)
    NumkeysNotPositive,
    /// `ERR Number of keys can't be greater than number of args` (SINTERCARD, ZINTERCARD)
    NumkeysTooLarge,
    /// `ERR LIMIT can't be negative` (SINTERCARD, ZINTERCARD)
    LimitNegative,
    /// `ERR value is out of range, the reply would exceed <n> elements`: kvlab's own limit
    /// on replies whose size the client chooses freely (`SRANDMEMBER k -huge`), which Redis
    /// would try to stream without bound.
    ReplyTooLarge(u64),
    /// `ERR unknown command '<name>', with args beginning with: '<a>' '<b>' `
    UnknownCommand {
        /// The command name as sent.
        name: String,
        /// The arguments after the name, as sent.
        args: Vec<String>,
    },
    /// `ERR unknown subcommand '<sub>'. Try <CMD> HELP.`
    UnknownSubcommand {
        /// The container command, e.g. `CONFIG`.
        command: String,
        /// The subcommand as sent.
        sub: String,
    },
    /// `ERR Protocol error: <detail>` (the server closes the connection after it).
    Protocol(String),
    /// `ERR XX and NX options at the same time are not compatible`
    ZAddXxNx,
    /// `ERR GT, LT, and/or NX options at the same time are not compatible`
    ZAddGtLtNx,
    /// `ERR INCR option supports a single increment-element pair`
    ZAddIncrPair,
    /// `ERR resulting score is not a number (NaN)`
    ScoreNan,
    /// `ERR min or max is not a float`
    MinMaxNotFloat,
    /// `ERR min or max not valid string range item`
    MinMaxNotLex,
    /// `ERR weight value is not a float`
    WeightNotFloat,
    /// `ERR at least 1 input key is needed for '<cmd>' command`
    AtLeastOneKey(String),
    /// `ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX`
    LimitNeedsByScoreOrLex,
    /// `ERR syntax error, WITHSCORES not supported in combination with BYLEX`
    WithScoresByLex,
    /// `ERR value is out of range`
    OutOfRange,
    /// `ERR One or more scores can't be converted into double` (SORT)
    SortNotDouble,
    /// `BUSYKEY Target key name already exists.` (RESTORE without REPLACE)
    BusyKey,
    /// `ERR Invalid TTL value, must be >= 0` (RESTORE)
    RestoreTtl,
    /// `ERR Invalid IDLETIME value, must be >= 0` (RESTORE)
    RestoreIdleTime,
    /// `ERR Invalid FREQ value, must be >= 0 and <= 255` (RESTORE)
    RestoreFreq,
    /// `ERR DUMP payload version or checksum are wrong` (RESTORE)
    DumpPayload,
    /// `ERR Bad data format` (RESTORE of a payload whose object cannot be read)
    BadDataFormat,
    /// `ERR <text>`: a one-off message that Redis formats at run time. The text must be
    /// Redis's own; prefer a named variant when a message is used in more than one place.
    Err(String),
    /// A message with its own error code (e.g. `NOPROTO ...`, `EXECABORT ...`).
    Coded(String),
    /// An error of the stream commands (see [`StreamError`]).
    Stream(StreamError),
}

/// An argument as Redis prints it into a message with C's `%s`: up to its first NUL byte
/// (`EXPIRE k 10 "\0x"` → `ERR Unsupported option `). Every error that quotes an argument
/// reads it through this.
pub fn c_str(arg: &[u8]) -> String {
    String::from_utf8_lossy(super::args::c_bytes(arg)).into_owned()
}

impl Error {
    /// Redis's `addReplySubcommandSyntaxError` for the command `argv`: its subcommand as
    /// sent, the command's name uppercased (`CLIENT UNBLOCK 1 2 3` → `… for 'UNBLOCK'. Try
    /// CLIENT HELP.`). Each is read as C's `%s` reads it: up to a NUL byte.
    pub fn subcommand_syntax(argv: &[Vec<u8>]) -> Error {
        let word = |i: usize| c_str(argv.get(i).map_or(&[][..], Vec::as_slice));
        Error::Subcommand(word(1), word(0).to_ascii_uppercase())
    }

    /// The reply that carries this error.
    pub fn to_reply(&self) -> Reply {
        Reply::Error(self.to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::WrongType => {
                f.write_str("WRONGTYPE Operation against a key holding the wrong kind of value")
            }
            Error::Syntax => f.write_str("ERR syntax error"),
            Error::Subcommand(sub, cmd) => write!(
                f,
                "ERR unknown subcommand or wrong number of arguments for '{}'. Try {cmd} HELP.",
                truncate(sub, 128)
            ),
            Error::NoAuth => f.write_str("NOAUTH Authentication required."),
            Error::HelloNoAuth => f.write_str(
                "NOAUTH HELLO must be called with the client already authenticated, otherwise \
                 the HELLO AUTH <user> <pass> option can be used to authenticate the \
                 client and select the RESP protocol version at the same time",
            ),
            Error::WrongPass => {
                f.write_str("WRONGPASS invalid username-password pair or user is disabled.")
            }
            Error::NoPermCommand(cmd) => write!(
                f,
                "NOPERM this user has no permissions to run the '{cmd}' command"
            ),
            Error::NoPermKey => f.write_str(
                "NOPERM this user has no permissions to access one of the keys used as arguments",
            ),
            Error::NoPermChannel => f.write_str(
                "NOPERM this user has no permissions to access one of the channels used as \
                 arguments",
            ),
            Error::AclModifier(op, why) => {
                write!(f, "ERR Error in ACL SETUSER modifier '{op}': {why}")
            }
            Error::AuthNoPassword => f.write_str(
                "ERR AUTH <password> called without any password configured for the default \
                 user. Are you sure your configuration is correct?",
            ),
            Error::TimeoutNotInteger => {
                f.write_str("ERR timeout is not an integer or out of range")
            }
            Error::TimeoutNegative => f.write_str("ERR timeout is negative"),
            Error::NoSuchKey => f.write_str("ERR no such key"),
            Error::NoLatencySamples(event) => {
                write!(f, "ERR No samples available for event '{event}'")
            }
            Error::IndexOutOfRange => f.write_str("ERR index out of range"),
            Error::NotInteger => f.write_str("ERR value is not an integer or out of range"),
            Error::NotFloat => f.write_str("ERR value is not a valid float"),
            Error::Overflow => f.write_str("ERR increment or decrement would overflow"),
            Error::NanOrInfinity => f.write_str("ERR increment would produce NaN or Infinity"),
            Error::MustBePositive => f.write_str("ERR value is out of range, must be positive"),
            Error::HashNotInteger => f.write_str("ERR hash value is not an integer"),
            Error::HashNotFloat => f.write_str("ERR hash value is not a float"),
            Error::StringTooLong => {
                f.write_str("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
            }
            Error::OffsetOutOfRange => f.write_str("ERR offset is out of range"),
            Error::BitValue => f.write_str("ERR bit is not an integer or out of range"),
            Error::OutOfMemory => {
                f.write_str("OOM command not allowed when used memory > 'maxmemory'.")
            }
            Error::NotBusy => f.write_str("NOTBUSY No scripts in execution right now."),
            Error::NoReplicas => f.write_str("NOREPLICAS Not enough good replicas to write."),
            Error::KeysOverArgs => {
                f.write_str("ERR Number of keys can't be greater than number of args")
            }
            Error::KeysNegative => f.write_str("ERR Number of keys can't be negative"),
            Error::InvalidCursor => f.write_str("ERR invalid cursor"),
            Error::BitOffset => f.write_str("ERR bit offset is not an integer or out of range"),
            Error::BitfieldType => f.write_str(
                "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.",
            ),
            Error::NotHll => f.write_str("WRONGTYPE Key is not a valid HyperLogLog string value."),
            Error::HllCorrupt => f.write_str("INVALIDOBJ Corrupted HLL object detected"),
            Error::DbIndexOutOfRange => f.write_str("ERR DB index is out of range"),
            Error::SameObject => f.write_str("ERR source and destination objects are the same"),
            Error::OutOfRangeBetween(min, max) => {
                write!(
                    f,
                    "ERR value is out of range, value must between {min} and {max}"
                )
            }
            Error::InvalidExpireTime(cmd) => {
                write!(f, "ERR invalid expire time in '{cmd}' command")
            }
            Error::WrongArity(cmd) => {
                write!(f, "ERR wrong number of arguments for '{cmd}' command")
            }
            Error::RankZero => f.write_str(
                "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second \
                 ... or use negative to start from the end of the list",
            ),
            Error::CountNegative => f.write_str("ERR COUNT can't be negative"),
            Error::MaxlenNegative => f.write_str("ERR MAXLEN can't be negative"),
            Error::CountNotPositive => f.write_str("ERR count should be greater than 0"),
            Error::NumkeysNotPositive => f.write_str("ERR numkeys should be greater than 0"),
            Error::NumkeysTooLarge => {
                f.write_str("ERR Number of keys can't be greater than number of args")
            }
            Error::LimitNegative => f.write_str("ERR LIMIT can't be negative"),
            Error::ReplyTooLarge(n) => {
                write!(
                    f,
                    "ERR value is out of range, the reply would exceed {n} elements"
                )
            }
            Error::UnknownCommand { name, args } => {
                // Redis: "unknown command '%.128s', with args beginning with: " followed by
                // "'%.*s' " per argument while the accumulated text stays under 128 bytes.
                write!(
                    f,
                    "ERR unknown command '{}', with args beginning with: ",
                    truncate(name, 128)
                )?;
                let mut used = 0usize;
                for a in args {
                    if used >= 128 {
                        break;
                    }
                    let room = 128 - used;
                    let shown = truncate(a, room);
                    write!(f, "'{shown}' ")?;
                    used += shown.len() + 3;
                }
                Ok(())
            }
            Error::UnknownSubcommand { command, sub } => write!(
                f,
                "ERR unknown subcommand '{}'. Try {} HELP.",
                truncate(sub, 128),
                command.to_ascii_uppercase()
            ),
            Error::Protocol(detail) => write!(f, "ERR Protocol error: {detail}"),
            Error::ZAddXxNx => {
                f.write_str("ERR XX and NX options at the same time are not compatible")
            }
            Error::ZAddGtLtNx => {
                f.write_str("ERR GT, LT, and/or NX options at the same time are not compatible")
            }
            Error::ZAddIncrPair => {
                f.write_str("ERR INCR option supports a single increment-element pair")
            }
            Error::ScoreNan => f.write_str("ERR resulting score is not a number (NaN)"),
            Error::MinMaxNotFloat => f.write_str("ERR min or max is not a float"),
            Error::MinMaxNotLex => f.write_str("ERR min or max not valid string range item"),
            Error::WeightNotFloat => f.write_str("ERR weight value is not a float"),
            Error::AtLeastOneKey(cmd) => {
                write!(f, "ERR at least 1 input key is needed for '{cmd}' command")
            }
            Error::LimitNeedsByScoreOrLex => f.write_str(
                "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
            ),
            Error::WithScoresByLex => {
                f.write_str("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
            }
            Error::OutOfRange => f.write_str("ERR value is out of range"),
            Error::SortNotDouble => {
                f.write_str("ERR One or more scores can't be converted into double")
            }
            Error::BusyKey => f.write_str("BUSYKEY Target key name already exists."),
            Error::RestoreTtl => f.write_str("ERR Invalid TTL value, must be >= 0"),
            Error::RestoreIdleTime => f.write_str("ERR Invalid IDLETIME value, must be >= 0"),
            Error::RestoreFreq => f.write_str("ERR Invalid FREQ value, must be >= 0 and <= 255"),
            Error::DumpPayload => f.write_str("ERR DUMP payload version or checksum are wrong"),
            Error::BadDataFormat => f.write_str("ERR Bad data format"),
            Error::Err(text) => write!(f, "ERR {text}"),
            Error::Coded(text) => f.write_str(text),
            Error::CrossSlot => f.write_str("CROSSSLOT Keys in request don't hash to the same slot"),
            Error::NotInCluster(cmd) => write!(f, "ERR {cmd} is not allowed in cluster mode"),
            Error::ClusterDisabled => f.write_str("ERR This instance has cluster support disabled"),
            Error::Stream(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

/// The errors of the stream commands (`t_stream.c`), each with Redis's exact text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// `ERR Invalid stream ID specified as stream command argument`
    InvalidId,
    /// `ERR The ID specified in XADD is equal or smaller than the target stream top item`
    IdNotGreater,
    /// `ERR The ID specified in XADD must be greater than 0-0`
    IdZero,
    /// `ERR The stream has exhausted the last possible ID, unable to add more items`
    Exhausted,
    /// `ERR Elements are too large to be stored`
    TooLarge,
    /// `ERR syntax error, MAXLEN and MINID options at the same time are not compatible`
    MaxlenAndMinid,
    /// `ERR The MAXLEN argument must be >= 0.`
    MaxlenNegative,
    /// `ERR The LIMIT argument must be >= 0.`
    LimitNegative,
    /// `ERR syntax error, LIMIT cannot be used without specifying a trimming strategy`
    LimitWithoutStrategy,
    /// `ERR syntax error, XTRIM must be called with a trimming strategy`
    TrimNeedsStrategy,
    /// `ERR syntax error, LIMIT cannot be used without the special ~ option`
    LimitWithoutApprox,
    /// `ERR invalid start ID for the interval`
    InvalidStart,
    /// `ERR invalid end ID for the interval`
    InvalidEnd,
    /// `ERR Unbalanced XREAD list of streams: …`
    Unbalanced,
    /// `ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.`
    GroupInXread,
    /// `ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.`
    NoackInXread,
    /// `ERR Missing GROUP option for XREADGROUP`
    MissingGroup,
    /// `ERR The $ ID is meaningless in the context of XREADGROUP: …`
    DollarInGroup,
    /// `ERR The > ID can be specified only when calling XREADGROUP …`
    GreaterOutsideGroup,
    /// `NOGROUP No such key '<key>' or consumer group '<group>' in XREADGROUP with GROUP option`
    NoGroupRead(String, String),
    /// `NOGROUP No such consumer group '<group>' for key name '<key>'`
    NoGroupForKey(String, String),
    /// `NOGROUP No such key '<key>' or consumer group '<group>'`
    NoKeyOrGroup(String, String),
    /// `BUSYGROUP Consumer Group name already exists`
    BusyGroup,
    /// `ERR The XGROUP subcommand requires the key to exist. …`
    XgroupNeedsKey,
    /// `ERR value for ENTRIESREAD must be positive or -1`
    EntriesRead,
    /// `ERR entries_added must be positive`
    EntriesAdded,
    /// `ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id`
    SetIdBelowMaxDeleted,
    /// `ERR The ID specified in XSETID is smaller than the target stream top item`
    SetIdBelowTop,
    /// `ERR The entries_added specified in XSETID is smaller than the target stream length`
    SetIdEntriesAdded,
    /// `ERR Unrecognized XCLAIM option '<option>'`
    XclaimOption(String),
    /// `ERR Invalid min-idle-time argument for <XCLAIM|XAUTOCLAIM>`
    MinIdle(&'static str),
    /// `ERR Invalid <IDLE|TIME|RETRYCOUNT> option argument for XCLAIM`
    XclaimArg(&'static str),
    /// `ERR COUNT must be > 0`
    CountPositive,
    /// `NOGROUP the consumer group this client was blocked on no longer exists`
    GroupGone,
    /// `UNBLOCKED the stream key no longer exists`
    KeyGone,
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use StreamError::*;
        match self {
            InvalidId => f.write_str("ERR Invalid stream ID specified as stream command argument"),
            IdNotGreater => f.write_str(
                "ERR The ID specified in XADD is equal or smaller than the target stream top item",
            ),
            IdZero => f.write_str("ERR The ID specified in XADD must be greater than 0-0"),
            Exhausted => f.write_str(
                "ERR The stream has exhausted the last possible ID, unable to add more items",
            ),
            TooLarge => f.write_str("ERR Elements are too large to be stored"),
            MaxlenAndMinid => f.write_str(
                "ERR syntax error, MAXLEN and MINID options at the same time are not compatible",
            ),
            MaxlenNegative => f.write_str("ERR The MAXLEN argument must be >= 0."),
            LimitNegative => f.write_str("ERR The LIMIT argument must be >= 0."),
            LimitWithoutStrategy => f.write_str(
                "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy",
            ),
            TrimNeedsStrategy => {
                f.write_str("ERR syntax error, XTRIM must be called with a trimming strategy")
            }
            LimitWithoutApprox => {
                f.write_str("ERR syntax error, LIMIT cannot be used without the special ~ option")
            }
            InvalidStart => f.write_str("ERR invalid start ID for the interval"),
            InvalidEnd => f.write_str("ERR invalid end ID for the interval"),
            Unbalanced => f.write_str(
                "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
            ),
            GroupInXread => f.write_str(
                "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.",
            ),
            NoackInXread => f.write_str(
                "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.",
            ),
            MissingGroup => f.write_str("ERR Missing GROUP option for XREADGROUP"),
            DollarInGroup => f.write_str(
                "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the \
                 history of this consumer by specifying a proper ID, or use the > ID to get new \
                 messages. The $ ID would just return an empty result set.",
            ),
            GreaterOutsideGroup => f.write_str(
                "ERR The > ID can be specified only when calling XREADGROUP using the GROUP \
                 <group> <consumer> option.",
            ),
            NoGroupRead(key, group) => write!(
                f,
                "NOGROUP No such key '{key}' or consumer group '{group}' in XREADGROUP with GROUP option"
            ),
            NoGroupForKey(group, key) => write!(
                f,
                "NOGROUP No such consumer group '{group}' for key name '{key}'"
            ),
            NoKeyOrGroup(key, group) => {
                write!(f, "NOGROUP No such key '{key}' or consumer group '{group}'")
            }
            BusyGroup => f.write_str("BUSYGROUP Consumer Group name already exists"),
            XgroupNeedsKey => f.write_str(
                "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you \
                 may want to use the MKSTREAM option to create an empty stream automatically.",
            ),
            EntriesRead => f.write_str("ERR value for ENTRIESREAD must be positive or -1"),
            EntriesAdded => f.write_str("ERR entries_added must be positive"),
            SetIdBelowMaxDeleted => f.write_str(
                "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id",
            ),
            SetIdBelowTop => f.write_str(
                "ERR The ID specified in XSETID is smaller than the target stream top item",
            ),
            SetIdEntriesAdded => f.write_str(
                "ERR The entries_added specified in XSETID is smaller than the target stream length",
            ),
            XclaimOption(opt) => write!(f, "ERR Unrecognized XCLAIM option '{opt}'"),
            MinIdle(cmd) => write!(f, "ERR Invalid min-idle-time argument for {cmd}"),
            XclaimArg(opt) => write!(f, "ERR Invalid {opt} option argument for XCLAIM"),
            CountPositive => f.write_str("ERR COUNT must be > 0"),
            GroupGone => f.write_str(
                "NOGROUP the consumer group this client was blocked on no longer exists",
            ),
            KeyGone => f.write_str("UNBLOCKED the stream key no longer exists"),
        }
    }
}

impl From<StreamError> for Error {
    fn from(e: StreamError) -> Error {
        Error::Stream(e)
    }
}

/// At most `max` bytes of `s`, cut on a character boundary.
fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_command_lists_args_with_trailing_space() {
        let e = Error::UnknownCommand {
            name: "foo".into(),
            args: vec!["a".into(), "b".into()],
        };
        assert_eq!(
            e.to_string(),
            "ERR unknown command 'foo', with args beginning with: 'a' 'b' "
        );
        let e = Error::UnknownCommand {
            name: "foo".into(),
            args: vec![],
        };
        assert_eq!(
            e.to_string(),
            "ERR unknown command 'foo', with args beginning with: "
        );
    }
}
