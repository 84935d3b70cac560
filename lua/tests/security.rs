//! The reference's Lua security fixes (Debian's redis 7.0.15 patches, restated in
//! build.rs): each probe's answer was recorded from that redis-server with EVAL.
use kvlab_lua::Lua;

fn run(src: &str) -> Result<Vec<String>, String> {
    Lua::new()
        .run("@user_script", src.as_bytes())
        .map(|v| {
            v.into_iter()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .collect()
        })
        .map_err(|e| String::from_utf8_lossy(&e.0).into_owned())
}

#[test]
fn unpack_refuses_ranges_it_cannot_hold() {
    // CVE-2025-46817.
    for range in ["-2, 2147483647", "0, 2147483647", "-2147483648, -2"] {
        let src = format!("return {{unpack({{1,2,3}}, {range})}}");
        assert_eq!(
            run(&src),
            Err("user_script:1: too many results to unpack".into()),
            "{range}"
        );
    }
    assert_eq!(
        run("return #{unpack({1,2,3}, -1, -2)}"),
        Ok(vec!["0".into()])
    );
    assert_eq!(
        run("return select('#', unpack({1,2,3}, -1, 5))"),
        Ok(vec!["7".into()])
    );
}

#[test]
fn long_brackets_lex_as_the_reference_lexes_them() {
    // CVE-2025-46819.
    assert_eq!(
        run("return loadstring('return [==[x]==]')()"),
        Ok(vec!["x".into()])
    );
    assert_eq!(
        run("return tostring(select(2, loadstring('return [=x')))"),
        Ok(vec![
            "[string \"return [=x\"]:1: invalid long string delimiter near '[='".into()
        ])
    );
}
