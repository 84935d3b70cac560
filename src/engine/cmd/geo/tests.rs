//! Tests of the geo group through the engine: effects, stores and odd arguments.

use crate::engine::testing::{cli, connected_at};

#[test]
fn geoadd_is_recorded_as_the_zadd_it_became() {
    let (mut e, c) = connected_at(1_704_067_200_000);
    e.take_effects();
    cli(&mut e, c, "GEOADD g CH 13.361389 38.115556 Palermo");
    let effects = e.take_effects();
    assert_eq!(effects.len(), 1);
    let argv: Vec<&[u8]> = effects[0].argv.iter().map(Vec::as_slice).collect();
    assert_eq!(
        argv,
        vec![&b"ZADD"[..], b"g", b"CH", b"3479099956230698", b"Palermo"]
    );
    // Nothing changed: nothing recorded.
    cli(&mut e, c, "GEOADD g 13.361389 38.115556 Palermo");
    assert!(e.take_effects().is_empty());
}

#[test]
fn stores_count_one_change_per_member_and_replay_as_themselves() {
    let (mut e, c) = connected_at(1_704_067_200_000);
    cli(&mut e, c, "GEOADD g 1 1 a 1.001 1 b 1.002 1 c");
    e.take_effects();
    let before = e.server().dirty;
    assert_eq!(
        cli(
            &mut e,
            c,
            "GEOSEARCHSTORE d g FROMLONLAT 1 1 BYRADIUS 1 km STOREDIST"
        ),
        "(integer) 3"
    );
    assert_eq!(e.server().dirty - before, 3);
    let effects = e.take_effects();
    assert_eq!(effects.len(), 1);
    assert_eq!(effects[0].argv[0], b"GEOSEARCHSTORE");
    let before = e.server().dirty;
    cli(&mut e, c, "GEORADIUS g 50 50 1 km STORE d");
    assert_eq!(e.server().dirty - before, 1);
    assert_eq!(cli(&mut e, c, "EXISTS d"), "(integer) 0");
}

#[test]
fn odd_arguments_give_errors_not_panics() {
    let (mut e, c) = connected_at(1_704_067_200_000);
    cli(&mut e, c, "ZADD g -inf a inf b 1e300 d -0 e");
    for line in [
        "GEOPOS g a b d e",
        "GEOHASH g a b d e",
        "GEODIST g a b",
        "GEOSEARCH g FROMMEMBER a BYBOX inf inf m WITHDIST WITHCOORD WITHHASH",
        "GEOSEARCH g FROMMEMBER b BYRADIUS 1e308 km COUNT 9223372036854775807 DESC",
        "GEOSEARCH g FROMLONLAT -180 -85.05112878 BYBOX 0 0 m",
        "GEORADIUS g 180 85.05112878 0 m COUNT 1 ANY",
        "GEOSEARCH g FROMLONLAT 1 1 BYRADIUS",
        "GEOSEARCH g FROMLONLAT 1 1 BYBOX 1 1",
        "GEOADD g 1",
        "GEOADD g NX XX CH",
    ] {
        let _ = cli(&mut e, c, line);
    }
    assert_eq!(
        cli(
            &mut e,
            c,
            "GEOSEARCH g FROMLONLAT 0 0 BYRADIUS 1 km COUNT 0"
        ),
        "(error) ERR COUNT must be > 0"
    );
}
