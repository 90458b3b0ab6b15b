//! The JavaScript mirror of the message contract (`extension/contract.js`) must list exactly the
//! messages and roles of `relay_core::contract::MESSAGES`.

use relay_core::contract::{Role, MESSAGES};

#[test]
fn javascript_mirror_matches_the_contract() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../extension/contract.js");
    let js = std::fs::read_to_string(path).expect("extension/contract.js exists");
    let body = js
        .split("Object.freeze({")
        .nth(1)
        .and_then(|b| b.split("});").next())
        .expect("MESSAGES object");
    let mut mirrored: Vec<(String, Vec<String>)> = body
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let name = l.strip_prefix('\'')?.split('\'').next()?.to_owned();
            let roles = l.split('[').nth(1)?.split(']').next()?;
            let roles = roles
                .split(',')
                .map(|r| r.trim().trim_matches('\'').to_owned())
                .filter(|r| !r.is_empty())
                .collect();
            Some((name, roles))
        })
        .collect();
    let mut expected: Vec<(String, Vec<String>)> = MESSAGES
        .iter()
        .map(|m| {
            let roles = m.roles.iter().map(|r| match r {
                Role::Page => "page".to_owned(),
                Role::Content => "content".to_owned(),
            });
            (m.name.to_owned(), roles.collect())
        })
        .collect();
    mirrored.sort();
    expected.sort();
    assert_eq!(
        mirrored, expected,
        "extension/contract.js drifted from contract.rs"
    );
}
