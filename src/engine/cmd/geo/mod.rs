//! The geo group: `GEOADD`, `GEOPOS`, `GEODIST`, `GEOHASH`, `GEOSEARCH`, `GEOSEARCHSTORE` and
//! the older `GEORADIUS*` commands.
//!
//! A geo set is a sorted set whose scores are 52-bit geohashes; the arithmetic (encoding,
//! decoding, distances, the nine cells a search scans) is in
//! [`crate::engine::types::geohash`]. These files parse arguments in the order Redis's
//! `geo.c` does, so the same error wins when several are wrong, and shape the replies:
//!
//! * coordinates are bulk strings in Redis's "human long double" format (`%.17Lf` with
//!   trailing zeros removed), e.g. `13.36138933897018433`; RESP3 doubles carry the same value;
//! * distances are bulk strings with four decimals (`%.4f`), in every protocol;
//! * `WITHHASH` gives the stored 52-bit score as an integer.
//!
//! # Effects
//! `GEOADD` is carried out by `ZADD` and recorded as the `ZADD` it became, as Redis
//! propagates it. The storing searches replay as themselves (their result only depends on
//! the data).

use crate::engine::table::{Command, Flags, Group, KeySpec};

mod common;
mod points;
mod search;
#[cfg(test)]
mod tests;

use points::{geoadd, geodist, geohash_cmd, geopos};
use search::{
    georadius, georadius_ro, georadiusbymember, georadiusbymember_ro, geosearch, geosearchstore,
};

const R: Flags = Flags::READONLY;
const WDM: Flags = Flags::WRITE.union(Flags::DENYOOM);

/// The geo commands.
pub const COMMANDS: &[Command] = &[
    Command::new("geoadd", -5, Group::Geo, geoadd)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(WDM)
        .doc(
            "key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]",
            "Adds members with their coordinates to a geospatial index (a sorted set).",
            "O(log N) for each member added",
            "3.2.0",
        ),
    Command::new("geodist", -4, Group::Geo, geodist)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key member1 member2 [M | KM | FT | MI]",
            "Returns the distance between two members of a geospatial index.",
            "O(log N)",
            "3.2.0",
        ),
    Command::new("geohash", -2, Group::Geo, geohash_cmd)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key [member [member ...]]",
            "Returns members' positions as standard 11-character geohash strings.",
            "O(log N) for each member requested",
            "3.2.0",
        ),
    Command::new("geopos", -2, Group::Geo, geopos)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key [member [member ...]]",
            "Returns the longitude and latitude of members of a geospatial index.",
            "O(log N) for each member requested",
            "3.2.0",
        ),
    Command::new("georadius", -6, Group::Geo, georadius)
        .key_specs(&[
            KeySpec::index(1, "RO access"),
            KeySpec::keyword("STORE", 6, "OW update"),
            KeySpec::keyword("STOREDIST", 6, "OW update"),
        ])
        .flags(WDM)
        .doc(
            "key longitude latitude radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]",
            "Returns members within a radius of a point, optionally storing them (deprecated: use GEOSEARCH).",
            "O(N+log(M)): N elements in the bounding box of the area, M the size of the set",
            "3.2.0",
        ),
    Command::new("georadius_ro", -6, Group::Geo, georadius_ro)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key longitude latitude radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]",
            "Returns members within a radius of a point (deprecated: use GEOSEARCH).",
            "O(N+log(M)): N elements in the bounding box of the area, M the size of the set",
            "3.2.10",
        ),
    Command::new("georadiusbymember", -5, Group::Geo, georadiusbymember)
        .key_specs(&[
            KeySpec::index(1, "RO access"),
            KeySpec::keyword("STORE", 5, "OW update"),
            KeySpec::keyword("STOREDIST", 5, "OW update"),
        ])
        .flags(WDM)
        .doc(
            "key member radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]",
            "Returns members within a radius of a member, optionally storing them (deprecated: use GEOSEARCH).",
            "O(N+log(M)): N elements in the bounding box of the area, M the size of the set",
            "3.2.0",
        ),
    Command::new("georadiusbymember_ro", -5, Group::Geo, georadiusbymember_ro)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key member radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]",
            "Returns members within a radius of a member (deprecated: use GEOSEARCH).",
            "O(N+log(M)): N elements in the bounding box of the area, M the size of the set",
            "3.2.10",
        ),
    Command::new("geosearch", -7, Group::Geo, geosearch)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key FROMMEMBER member | FROMLONLAT longitude latitude BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI [ASC | DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]",
            "Returns members inside a circle or a box around a member or a point.",
            "O(N+log(M)): N elements in the grid-aligned bounding box of the area, M the size of the set",
            "6.2.0",
        ),
    Command::new("geosearchstore", -8, Group::Geo, geosearchstore)
        .key_specs(&[KeySpec::index(1, "OW update"), KeySpec::index(2, "RO access")])
        .flags(WDM)
        .doc(
            "destination source FROMMEMBER member | FROMLONLAT longitude latitude BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI [ASC | DESC] [COUNT count [ANY]] [STOREDIST]",
            "Stores the members inside a circle or a box in a sorted set, with their hashes or distances as scores.",
            "O(N+log(M)): N elements in the grid-aligned bounding box of the area, M the size of the set",
            "6.2.0",
        ),
];
