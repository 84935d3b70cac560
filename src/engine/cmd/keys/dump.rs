//! DUMP: a key's value in Redis's serialization format.

use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::rdb::seal;
use crate::engine::rdb::write::{write_value, SaveOptions};
use crate::engine::{Ctx, Reply};

/// `DUMP key`: the value as Redis 7.0's `createDumpPayload` writes it — the RDB type byte
/// and object ([`write_value`], under the current `rdbcompression`,
/// `list-max-listpack-size` and `list-compress-depth`), the RDB version (10) as two
/// little-endian bytes and the CRC-64 of all that, little-endian — or nil for a missing
/// key. No deadline is included (RESTORE takes one as an argument). A read: it counts a
/// hit or miss and refreshes the access time, as Redis's `lookupKeyRead`. **O(N)** in the
/// value's size.
pub(super) fn dump(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let opts = SaveOptions::from_config(&ctx.srv.config).plain_from(ctx.srv.debug.packed_threshold);
    let Some(value) = ctx.lookup_read(key) else {
        return Ok(Reply::Nil);
    };
    let mut body = Vec::new();
    write_value(&mut body, value, &opts);
    Ok(Reply::Bulk(seal(body)))
}

#[cfg(test)]
mod tests {
    use crate::engine::testing;
    use crate::engine::Reply;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or(0))
            .collect()
    }

    /// Runs `setup` (one command a line) on a fresh engine and dumps `key`.
    fn dump_after(setup: &str, key: &str) -> Reply {
        let (mut e, c) = testing::connected_at(1_700_000_000_000);
        for line in setup.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let r = testing::run(&mut e, c, line);
            assert!(!matches!(r, Reply::Error(_)), "{line}: {r:?}");
        }
        testing::run(&mut e, c, &format!("DUMP {key}"))
    }

    // Each expected payload is real Redis 7.0.15's `DUMP` after the same commands.

    #[test]
    fn strings_small_and_compressed() {
        let long = "a".repeat(82);
        assert_eq!(
            dump_after(&format!("SET lz {long}"), "lz"),
            Reply::Bulk(unhex("00c3094052016161e045000161610a001587160472a2e86e"))
        );
        assert_eq!(
            dump_after("SET str hello", "str"),
            Reply::Bulk(unhex("000568656c6c6f0a006372df766534200a"))
        );
        assert_eq!(dump_after("", "missing"), Reply::Nil);
    }

    #[test]
    fn listpacks_intsets_and_tables() {
        let cases = [
            (
                "HSET s f v n 12 neg -1",
                "101a1a0000000600816602817602816e020c01836e656704dfff02ff0a001f04c93dd53e78bb",
            ),
            ("SADD s 1 2 3", "0b0e02000000030000000100020003000a00a5025ce26d6e4d1b"),
            ("SADD s 1 70000", "0b10040000000200000001000000701101000a002735436efd6656c4"),
            (
                "ZADD s 1 a 1.5 b -2 c inf d",
                "1122220000000800816302dffe02816102010181620283312e350481640283696e6604ff0a005a20b1feaacfbaf6",
            ),
            ("SADD s a", "020101610a006296e97e44d21a6d"),
            (
                "CONFIG SET hash-max-listpack-entries 0\nHSET s f v",
                "0401016601760a00adf24356b1860efc",
            ),
            (
                // A member of 65 bytes makes a skiplist (written greatest first, the long
                // member LZF-compressed).
                "ZADD s 1 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx 2.5 b -1 c",
                "050301620000000000000440c3094041017878e03400017878000000000000f03f0163000000000000f0bf0a00057834201152a1b7",
            ),
        ];
        for (setup, want) in cases {
            assert_eq!(dump_after(setup, "s"), Reply::Bulk(unhex(want)), "{setup}");
        }
    }

    #[test]
    fn lists_in_quicklist_nodes() {
        assert_eq!(
            dump_after(
                "CONFIG SET list-max-listpack-size 3\nRPUSH l a b c d e 1000",
                "l"
            ),
            Reply::Bulk(unhex(concat!(
                "12020210100000000300816102816202816302ff0210100000000300816402816502c3e802ff",
                "0a003eeb481932f801e7"
            )))
        );
        let want = unhex(concat!(
            "120102405c5c0000000f008161020101dfff02c0c802f178ec03f2409c0004f2c063ff04f340",
            "54890005f3c0ab76ff05f4005ed0b20000000009f400a22f4dffffffff09f4ffffffffffffff",
            "7f09f4000000000000008009822d300382303103ff0a006646f74672518c50"
        ));
        let push = "RPUSH l a 1 -1 200 -5000 40000 -40000 9000000 -9000000 3000000000 \
                    -3000000000 9223372036854775807 -9223372036854775808 -0 01";
        assert_eq!(dump_after(push, "l"), Reply::Bulk(want));
    }

    #[test]
    fn streams_with_nodes_and_groups() {
        let setup = "XADD x 1-1 a 1 b 2\nXADD x 1-2 a 3 b 4\nXADD x 2-0 c 5";
        assert_eq!(
            dump_after(setup, "x"),
            Reply::Bulk(unhex(concat!(
                "130110000000000000000100000000000000013d3d0000001900030100010201816102816202",
                "000102010001000101010201050102010001010103010401050100010101dfff02010181630205",
                "010601ff0302000101000003000a00f022942e09714305"
            )))
        );
        let setup = "CONFIG SET stream-node-max-entries 2\nXADD x 5-0 a 1\nXADD x 5-1 a 2\n\
                     XADD x 6-0 b 3\nXGROUP CREATE x grp $";
        assert_eq!(
            dump_after(setup, "x"),
            Reply::Bulk(unhex(concat!(
                "1302100000000000000005000000000000000026260000000f00020100010101816102000102",
                "01000100010101040102010001010102010401ff1000000000000000060000000000000000",
                "1c1c0000000a00010100010101816202000102010001000103010401ff0306000500000003",
                "0103677270060081ffffffffffffffff00000a0087d40578c1dd0b94"
            )))
        );
    }
}
