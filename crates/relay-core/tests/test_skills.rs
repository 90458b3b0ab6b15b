//! Skills (SEP-2640): a skill file read is used only when its size, digest and, for a
//! SKILL.md, its frontmatter match the listing; the frontmatter reader on what real SKILL.md
//! files write.

use relay_core::model::ReadResourceResult;
use relay_core::skills::{
    declare, parse_frontmatter, sha256_hex, verify_bytes, verify_read, verify_text,
    FrontmatterError, Skill, SkillError,
};
use serde_json::{json, Value};

const SKILL_URI: &str = "skill://pdf-processing/SKILL.md";
const FORMS_URI: &str = "skill://pdf-processing/references/FORMS.md";
const SKILL_MD: &str =
    "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
const FORMS_MD: &str = "Supporting content.\n";

fn digest(text: &str) -> String {
    format!("sha256:{}", sha256_hex(text.as_bytes()))
}

/// The entry a server lists for `skill_md` (its frontmatter as `frontmatter`).
fn entry(skill_md: &str, frontmatter: Value) -> Skill {
    serde_json::from_value(json!({
        "uri": SKILL_URI,
        "frontmatter": frontmatter,
        "resources": [
            {"uri": SKILL_URI, "digest": digest(skill_md), "size": skill_md.len()},
            {"uri": FORMS_URI, "digest": digest(FORMS_MD), "size": FORMS_MD.len()},
        ],
    }))
    .expect("a skill entry")
}

fn listed() -> Value {
    json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"})
}

#[derive(Debug, PartialEq)]
enum Expect {
    Loaded,
    Size,
    Digest,
    Differs(String),
    NoFrontmatter,
}

fn outcome(result: Result<relay_core::skills::VerifiedFile, SkillError>) -> Expect {
    match result {
        Ok(_) => Expect::Loaded,
        Err(SkillError::Size { .. }) => Expect::Size,
        Err(SkillError::Digest { .. }) => Expect::Digest,
        Err(SkillError::FrontmatterDiffers { field, .. }) => Expect::Differs(field),
        Err(SkillError::Frontmatter {
            source: FrontmatterError::Missing,
            ..
        }) => Expect::NoFrontmatter,
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

#[test]
fn a_read_is_used_only_when_it_matches_the_listing() {
    let tampered_body = SKILL_MD.replace("Skill body.", "Evil body!!");
    let longer = format!("{SKILL_MD}extra bytes the entry did not account for\n");
    let other_description = SKILL_MD.replace(
        "Extract, fill, and assemble PDF documents",
        "Exfiltrate credentials",
    );
    let no_frontmatter = "Skill body without frontmatter.\n";
    let bom_crlf = "\u{feff}---\r\nname: pdf-processing\r\ndescription: Extract, fill, and assemble PDF documents\r\n---\r\n\r\nSkill body.\r\n";
    // (what: the listing is made for, the bytes served, the outcome)
    let cases: Vec<(&str, &str, &str, Value, Expect)> = vec![
        ("good", SKILL_MD, SKILL_MD, listed(), Expect::Loaded),
        // Same length, other bytes: only the digest tells.
        (
            "wrong digest",
            SKILL_MD,
            &tampered_body,
            listed(),
            Expect::Digest,
        ),
        ("wrong size", SKILL_MD, &longer, listed(), Expect::Size),
        // The listing's digest and size are those of the file, but its frontmatter is not.
        (
            "frontmatter differs",
            &other_description,
            &other_description,
            listed(),
            Expect::Differs("description".into()),
        ),
        (
            "a field only the listing has",
            SKILL_MD,
            SKILL_MD,
            json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "license": "MIT"}),
            Expect::Differs("license".into()),
        ),
        (
            "missing frontmatter",
            no_frontmatter,
            no_frontmatter,
            listed(),
            Expect::NoFrontmatter,
        ),
        ("BOM and CRLF", bom_crlf, bom_crlf, listed(), Expect::Loaded),
    ];
    for (what, listed_for, served, frontmatter, expected) in cases {
        let skill = entry(listed_for, frontmatter);
        let got = outcome(verify_text(&skill, SKILL_URI, served));
        assert_eq!(got, expected, "{what}");
    }
}

#[test]
fn reference_files_are_checked_and_unlisted_files_refused() {
    let skill = entry(SKILL_MD, listed());
    let file = verify_text(&skill, FORMS_URI, FORMS_MD).expect("the listed reference");
    assert_eq!(file.text(), FORMS_MD);
    assert_eq!(file.uri(), FORMS_URI);
    assert!(matches!(
        verify_text(&skill, FORMS_URI, "Supporting content!\n"),
        Err(SkillError::Digest { .. })
    ));
    assert!(matches!(
        verify_text(&skill, "skill://pdf-processing/other.md", FORMS_MD),
        Err(SkillError::NotListed { .. })
    ));
    assert_eq!(skill.references(), vec![FORMS_URI]);
    assert_eq!(skill.name(), "pdf-processing");
}

#[test]
fn a_read_result_is_verified_from_text_or_blob() {
    use base64::Engine as _;
    let skill = entry(SKILL_MD, listed());
    let as_text: ReadResourceResult = serde_json::from_value(json!({
        "contents": [{"uri": SKILL_URI, "mimeType": "text/markdown", "text": SKILL_MD}]
    }))
    .expect("a read result");
    assert_eq!(
        verify_read(&skill, SKILL_URI, &as_text)
            .expect("verified")
            .text(),
        SKILL_MD
    );
    let blob = base64::engine::general_purpose::STANDARD.encode(FORMS_MD);
    let as_blob: ReadResourceResult =
        serde_json::from_value(json!({"contents": [{"uri": FORMS_URI, "blob": blob}]}))
            .expect("a read result");
    assert_eq!(
        verify_read(&skill, FORMS_URI, &as_blob)
            .expect("verified")
            .text(),
        FORMS_MD
    );
    let empty: ReadResourceResult = serde_json::from_value(json!({"contents": []})).expect("read");
    assert!(matches!(
        verify_read(&skill, SKILL_URI, &empty),
        Err(SkillError::NoContents { .. })
    ));
}

#[test]
fn a_malformed_listed_digest_is_an_error_not_a_pass() {
    let skill: Skill = serde_json::from_value(json!({
        "uri": SKILL_URI,
        "frontmatter": listed(),
        "resources": [{"uri": SKILL_URI, "digest": "md5:abc", "size": SKILL_MD.len()}],
    }))
    .expect("entry");
    assert!(matches!(
        verify_bytes(&skill, SKILL_URI, SKILL_MD.as_bytes()),
        Err(SkillError::BadDigest { .. })
    ));
}

#[test]
fn a_dynamic_skill_md_is_checked_by_its_frontmatter_and_its_other_files_refused() {
    let skill: Skill = serde_json::from_value(json!({
        "uri": SKILL_URI, "frontmatter": listed(), "resources": "dynamic",
    }))
    .expect("a dynamic entry");
    assert!(verify_text(&skill, SKILL_URI, SKILL_MD).is_ok());
    let other = SKILL_MD.replace("Extract, fill, and assemble PDF documents", "Other");
    assert!(matches!(
        verify_text(&skill, SKILL_URI, &other),
        Err(SkillError::FrontmatterDiffers { .. })
    ));
    assert!(matches!(
        verify_text(&skill, FORMS_URI, FORMS_MD),
        Err(SkillError::NotListed { .. })
    ));
    assert!(skill.references().is_empty());
}

#[test]
fn errors_say_what_did_not_match() {
    let skill = entry(SKILL_MD, listed());
    let longer = format!("{SKILL_MD}x");
    let message = verify_text(&skill, SKILL_URI, &longer)
        .expect_err("too long")
        .to_string();
    assert!(
        message.contains(&format!("{} bytes", SKILL_MD.len() + 1)),
        "{message}"
    );
    assert!(message.contains("not loaded"), "{message}");
}

#[test]
fn frontmatter_reads_what_skill_files_write() {
    let cases: Vec<(&str, &str, Value)> = vec![
        (
            "scalars",
            "---\nname: a-skill\ndescription: 'It''s quoted'\nversion: 2\nratio: 1.5\nbeta: true\nowner: ~\nnote: \"tab\\there \\u00e9\" # a comment\n---\nbody",
            json!({"name": "a-skill", "description": "It's quoted", "version": 2, "ratio": 1.5, "beta": true, "owner": null, "note": "tab\there é"}),
        ),
        (
            "lists and nested maps",
            "---\nname: s\nallowed-tools:\n  - Read\n  - \"Bash(git:*)\"\ntags: [pdf, 'forms', 3]\nmetadata:\n  author: someone\n  nested:\n    depth: 2\n  items:\n  - a\n  - b\n---\n",
            json!({"name": "s", "allowed-tools": ["Read", "Bash(git:*)"], "tags": ["pdf", "forms", 3], "metadata": {"author": "someone", "nested": {"depth": 2}, "items": ["a", "b"]}}),
        ),
        (
            "a list of maps",
            "---\nsteps:\n  - name: one\n    run: x\n  - name: two\n---\n",
            json!({"steps": [{"name": "one", "run": "x"}, {"name": "two"}]}),
        ),
        (
            "block scalars",
            "---\nliteral: |\n  line one\n  line two\nfolded: >-\n  folded\n  text\n\n  next\nkeep: |+\n  kept\n\nend: 1\n---\n",
            json!({"literal": "line one\nline two\n", "folded": "folded text\nnext", "keep": "kept\n\n", "end": 1}),
        ),
        (
            "plain text over lines",
            "---\ndescription: Use this skill when\n  the user asks\n---\n",
            json!({"description": "Use this skill when the user asks"}),
        ),
        (
            "numbers as YAML writes them",
            "---\na: .5\nb: +1\nc: 1.\nd: -2.5e3\ne: 1.e2\nf: 1e400\ng: 1.2.3\nh: -0\n---\n",
            json!({"a": 0.5, "b": 1, "c": 1.0, "d": -2500.0, "e": 100.0, "f": "1e400", "g": "1.2.3", "h": 0}),
        ),
        ("empty", "---\n---\n", json!({})),
    ];
    for (what, text, expected) in cases {
        let got = parse_frontmatter(text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(Value::Object(got), expected, "{what}");
    }
}

#[test]
fn frontmatter_it_cannot_read_is_an_error() {
    let cases: Vec<(&str, &str)> = vec![
        ("no block", "name: x\n"),
        ("unclosed", "---\nname: x\n"),
        ("an anchor", "---\nname: &a x\n---\n"),
        ("an alias", "---\nname: *a\n---\n"),
        ("a duplicate key", "---\nname: x\nname: y\n---\n"),
        (
            "a colon in a plain value",
            "---\ndescription: Use when: x\n---\n",
        ),
        ("a flow mapping", "---\nmeta: {a: 1}\n---\n"),
        ("bad indentation", "---\nname: x\n   other: y\n---\n"),
        ("not a mapping", "---\n- a\n- b\n---\n"),
        ("a tab", "---\nmeta:\n\tx: 1\n---\n"),
    ];
    for (what, text) in cases {
        assert!(
            parse_frontmatter(text).is_err(),
            "{what}: {:?}",
            parse_frontmatter(text)
        );
    }
}

#[test]
fn the_extension_is_declared_beside_others() {
    let mut caps = json!({"elicitation": {}, "extensions": {"x/y": {"a": 1}}});
    declare(&mut caps);
    assert_eq!(caps["extensions"]["x/y"], json!({"a": 1}));
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({})
    );
    let mut bare = json!({});
    declare(&mut bare);
    assert_eq!(
        bare["extensions"]["io.modelcontextprotocol/skills"],
        json!({})
    );
}
