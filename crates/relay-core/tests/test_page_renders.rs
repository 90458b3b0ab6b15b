//! Transcript tests of the page model (`relay_core::page`) for re-renders and regenerations:
//! a reply's element replaced by another render of it is the same reply; a reply the user
//! had written again is a new one; an older branch shown again is the reply it was.

mod page_tab;

use page_tab::*;
use relay_core::page::{Report, ReportText, TurnState, SETTLE_MS};

/// What the loop was told is all about reply `id`, read live (never history), and it ended once.
fn only_this_reply_ran_and_ended_once(live: &[Report], id: &str, case: &str) {
    assert!(
        live.iter().all(|r| r.message_id == id && !r.history),
        "{case}: {live:?}"
    );
    assert_eq!(
        live.iter().filter(|r| r.done).count(),
        1,
        "{case}: {live:?}"
    );
}

// Re-renders and regenerations: a reply's element replaced by its final render is the same
// reply; a reply the user had written again (Regenerate) is a new one; an older branch shown
// again is the reply it was.

/// A reply whose call spans several code lines (what gutters number).
const CODE: &str = "Sure, adding them.\n```json\n{\n  \"tool\": \"add\",\n  \"arguments\": {\"a\": 2, \"b\": 3}\n}\n```";
const CODE_LINES: &str = "{\n  \"tool\": \"add\",\n  \"arguments\": {\"a\": 2, \"b\": 3}\n}\n";

/// `CODE` as its final render reads: `code` is the code block's text as the render shows it.
fn rendered(code: &str) -> String {
    CODE.replace(CODE_LINES, code)
}

/// Final renders of `CODE` that show the same reply.
fn final_renders() -> Vec<(&'static str, String)> {
    let lines: Vec<&str> = CODE_LINES.lines().collect();
    let numbers: String = (1..=lines.len()).map(|n| format!("{n}\n")).collect();
    let interleaved: String = (lines.iter().enumerate())
        .map(|(n, l)| format!("{}\n{l}\n", n + 1))
        .collect();
    vec![
        // (a) a line-number gutter
        ("gutter before the code", rendered(&(numbers + CODE_LINES))),
        ("gutter among the code lines", rendered(&interleaved)),
        // (b) highlighted token spans: other white space and line breaks
        (
            "token spans",
            rendered(&CODE_LINES.replace(": ", ":\n").replace("  ", "\t ")),
        ),
        // (c) a trailing line, a code block's header
        ("a trailing Copy", format!("{CODE}\nCopy")),
        ("a trailing page counter", format!("{CODE}\n1 / 1")),
        ("a final newline", format!("{CODE}\n")),
        (
            "a code block's header and a gutter",
            rendered(&format!("json\nCopy code\n1\n2\n3\n4\n{CODE_LINES}")),
        ),
    ]
}

/// When the site replaces a reply's element by its final render.
#[derive(Debug, Clone, Copy)]
enum When {
    /// With the stop control still shown.
    Streaming,
    /// In the look where the stop control went.
    SignalGone,
    /// After the reply ended, in one look.
    Ended,
    /// After the reply ended, in one look that sees the stop control (a site's flicker): a
    /// render complete at once is the reply shown again, not one written anew.
    EndedSignal,
    /// After the reply ended: the element goes in one look, the new one comes in the next.
    EndedApart,
    /// After the reply ended, in the same element (a highlighter's second pass).
    InPlace,
}

#[test]
fn a_reply_re_rendered_in_a_new_element_is_the_same_reply() {
    use When::*;
    for (what, text) in final_renders() {
        for when in [
            Streaming,
            SignalGone,
            Ended,
            EndedSignal,
            EndedApart,
            InPlace,
        ] {
            re_rendered(&format!("{what}, {when:?}"), &text, when);
        }
    }
}

/// A reply streamed in one element, replaced by `text` in another `when`.
fn re_rendered(case: &str, text: &str, when: When) {
    use When::*;
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, "Sure, add")], true);
    tab.wait(100);
    tab.look(&[user(1), same(2), user(3), a(4, CODE)], true);
    let ids = tab.ids();
    tab.wait(100);
    let mut outs = Vec::new();
    let h = if matches!(when, InPlace) { 4 } else { 9 };
    let b = [user(1), same(2), user(3), a(h, text)];
    match when {
        Streaming => {
            outs.push(tab.look(&b, true));
            tab.wait(100);
            outs.push(tab.look(&[user(1), same(2), user(3), same(9)], false));
        }
        SignalGone => outs.push(tab.look(&b, false)),
        Ended | EndedSignal | EndedApart | InPlace => {
            let out = tab.look(&[user(1), same(2), user(3), same(4)], false);
            assert_eq!(live_reports(&out), [(true, "unchanged")], "{case}");
            if matches!(when, EndedApart) {
                outs.push(tab.look(&[user(1), same(2), user(3)], false));
                tab.wait(16);
            }
            outs.push(tab.look(&b, matches!(when, EndedSignal)));
        }
    }
    tab.wait(SETTLE_MS);
    outs.push(tab.look(&[user(1), same(2), user(3), same(h)], false));
    assert_eq!(tab.ids(), ids, "{case}: the same reply, not a second one");
    assert_eq!(tab.page.turns[1].handle, Some(h), "{case}");
    assert_eq!(
        tab.states(),
        [TurnState::History, TurnState::Done],
        "{case}"
    );
    // Whatever the loop is told is about that reply (its parser, its ledger key); once it has
    // ended, another render of it is not more of it (only text after its own is).
    for r in outs.iter().flat_map(|o| &o.reports) {
        assert_eq!(r.message_id, ids[1], "{case}: {r:?}");
        let ended = !matches!(when, Streaming | SignalGone);
        assert!(!ended || text.ends_with("Copy"), "{case}: {r:?}");
    }
}

/// How a regenerated reply comes: (its first text and whether the look showing it sees the
/// stop control, the old element leaving in that same look, its final text).
#[test]
fn a_regenerated_reply_is_new_and_an_older_branch_shown_again_is_the_reply_it_was() {
    let other = CODE.replace("Sure, adding them.", "Of course: the sum.");
    let cases: [(&str, &str, bool, bool, &str); 6] = [
        ("streamed anew, same text", "Sure", true, false, CODE),
        ("streamed anew, other text", "Of", true, false, &other),
        ("streamed anew in the same look", "Sure", true, true, CODE),
        (
            "streamed anew, long first look",
            &CODE[..30],
            true,
            false,
            CODE,
        ),
        ("streamed anew, no signal", "Sure", false, false, CODE),
        (
            "streamed anew, long first look, no signal",
            &CODE[..30],
            false,
            false,
            CODE,
        ),
    ];
    for (what, first, streaming, together, last) in cases {
        regenerated(what, first, streaming, together, last);
    }
}

/// The user has `CODE`'s reply written again: it comes with `first` then `last`, under the
/// stop control when `streaming`, the old element leaving in the same look when `together`;
/// then the user switches back to the old branch and forth to the new one.
fn regenerated(what: &str, first: &str, streaming: bool, together: bool, last: &str) {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CODE)], true);
    tab.wait(100);
    tab.look(&[user(1), same(2), user(3), same(4)], false);
    assert_eq!(tab.states()[1], TurnState::Done, "{what}");
    let old = tab.ids()[1].clone();
    // Regenerate: the old reply's element goes, a new one is written in its place.
    if !together {
        let out = tab.look(&[user(1), same(2), user(3)], streaming);
        assert!(out.reports.is_empty(), "{what}: {:?}", out.reports);
        tab.wait(50);
    }
    let mut live = Vec::new();
    let out = tab.look(&[user(1), same(2), user(3), a(20, first)], streaming);
    live.extend(out.reports);
    tab.wait(100);
    let out = tab.look(&[user(1), same(2), user(3), a(20, last)], streaming);
    live.extend(out.reports);
    tab.wait(SETTLE_MS);
    let out = tab.look(&[user(1), same(2), user(3), same(20)], false);
    live.extend(out.reports);
    let ids = tab.ids();
    assert_eq!(ids.len(), 3, "{what}: a new reply: {ids:?}");
    let new = ids[2].clone();
    assert_ne!(new, old, "{what}");
    assert_eq!(
        tab.states(),
        [TurnState::History, TurnState::Done, TurnState::Done],
        "{what}"
    );
    // Its calls run: it is read live, from its first text, and ends once.
    assert!(
        live.iter().all(|r| r.message_id == new && !r.history),
        "{what}: {live:?}"
    );
    assert!(
        matches!(live[0].text, ReportText::Whole(_)),
        "{what}: {live:?}"
    );
    assert_eq!(
        live.iter().filter(|r| r.done).count(),
        1,
        "{what}: {live:?}"
    );
    assert_eq!(tab.page.text_of(&new), Some(last), "{what}");
    // ‹ 1/2 ›: the old branch's reply shown again (a new element, its text), then the new
    // branch's again: nothing runs, no reply is new.
    for (h, text) in [(30, CODE.to_owned()), (31, format!("{last}\n2 / 2"))] {
        tab.wait(200);
        let out = tab.look(&[user(1), same(2), user(3)], false);
        assert!(live_reports(&out).is_empty(), "{what}: {:?}", out.reports);
        let out = tab.look(&[user(1), same(2), user(3), a(h, &text)], false);
        assert!(live_reports(&out).is_empty(), "{what}: {:?}", out.reports);
        tab.wait(SETTLE_MS);
        let out = tab.look(&[user(1), same(2), user(3), same(h)], false);
        assert!(live_reports(&out).is_empty(), "{what}: {:?}", out.reports);
        assert_eq!(tab.ids(), ids, "{what}: branch {h}");
    }
}

/// A regenerated reply whose element the page replaces by its final render while it is still
/// being written, with the very text of the reply it replaces (the sweep's seeds 12 and 193):
/// the render is the reply being written, not the old reply it repeats, and it ends once.
#[test]
fn a_regenerated_reply_re_rendered_with_the_old_reply_s_text_stays_the_new_reply() {
    // What the reply showed while it streamed: its final text, or another render of it.
    let gutter = rendered(&format!("1\n2\n3\n4\n{CODE_LINES}"));
    for (streaming, streamed) in [
        (true, CODE),
        (false, CODE),
        (true, gutter.as_str()),
        (false, gutter.as_str()),
    ] {
        let mut tab = Tab::new("load-1");
        fresh_reply(&mut tab);
        tab.look(&[user(1), same(2), user(3), a(4, CODE)], true);
        tab.wait(100);
        tab.look(&[user(1), same(2), user(3), same(4)], false);
        let old = tab.ids()[1].clone();
        tab.look(&[user(1), same(2), user(3)], streaming);
        tab.wait(50);
        let mut live = tab
            .look(&[user(1), same(2), user(3), a(20, "Sure")], streaming)
            .reports;
        tab.wait(100);
        live.extend(
            tab.look(&[user(1), same(2), user(3), a(20, streamed)], streaming)
                .reports,
        );
        tab.wait(20);
        live.extend(
            tab.look(&[user(1), same(2), user(3), a(21, CODE)], streaming)
                .reports,
        );
        tab.wait(SETTLE_MS);
        live.extend(
            tab.look(&[user(1), same(2), user(3), same(21)], false)
                .reports,
        );
        let ids = tab.ids();
        assert_eq!(ids.len(), 3, "streaming={streaming}: {ids:?}");
        assert_ne!(ids[2], old);
        assert_eq!(
            tab.states(),
            [TurnState::History, TurnState::Done, TurnState::Done],
            "streaming={streaming}"
        );
        only_this_reply_ran_and_ended_once(&live, &ids[2], &format!("streaming={streaming}"));
    }
}

/// A reply seen part way while it streams as raw markdown (its fence shown), whose element the
/// page then replaces by a final render showing all of it at once, drawn differently (the
/// fence hidden, a code block's header and gutter): the render is the reply being written —
/// the first reply of a conversation, and a regenerated one that a render of the old reply
/// would otherwise match (the sweep's seed 906301858).
#[test]
fn a_reply_caught_part_way_then_replaced_by_a_different_final_render_is_that_reply() {
    let part = &CODE[..CODE.find("\"add\"").unwrap()];
    let drawn = CODE
        .replace("```json\n", "json\nCopy code\n1\n2\n3\n4\n")
        .replace("\n```", "");
    for (streaming, regenerate) in [(true, false), (false, false), (true, true), (false, true)] {
        let case = format!("streaming={streaming} regenerate={regenerate}");
        let mut tab = Tab::new("load-1");
        fresh_reply(&mut tab);
        let mut old = None;
        if regenerate {
            tab.look(&[user(1), same(2), user(3), a(4, CODE)], true);
            tab.wait(100);
            tab.look(&[user(1), same(2), user(3), a(5, &drawn)], false);
            tab.wait(SETTLE_MS);
            tab.look(&[user(1), same(2), user(3), same(5)], false);
            assert_eq!(
                tab.states(),
                [TurnState::History, TurnState::Done],
                "{case}"
            );
            old = Some(tab.ids()[1].clone());
            tab.look(&[user(1), same(2), user(3)], streaming);
            tab.wait(50);
        }
        let mut live = tab
            .look(
                &[user(1), same(2), user(3), a(20, "Sure, adding")],
                streaming,
            )
            .reports;
        tab.wait(100);
        live.extend(
            tab.look(&[user(1), same(2), user(3), a(20, part)], streaming)
                .reports,
        );
        tab.wait(30);
        live.extend(
            tab.look(&[user(1), same(2), user(3), a(21, &drawn)], streaming)
                .reports,
        );
        tab.wait(SETTLE_MS);
        live.extend(
            tab.look(&[user(1), same(2), user(3), same(21)], false)
                .reports,
        );
        let ids = tab.ids();
        assert_eq!(ids.len(), if regenerate { 3 } else { 2 }, "{case}: {ids:?}");
        let new = ids.last().unwrap();
        assert_ne!(Some(new), old.as_ref(), "{case}");
        assert_eq!(tab.states().last(), Some(&TurnState::Done), "{case}");
        assert!(
            live.iter().all(|r| &r.message_id == new && !r.history),
            "{case}: {live:?}"
        );
        assert_eq!(
            live.iter().filter(|r| r.done).count(),
            1,
            "{case}: {live:?}"
        );
        assert_eq!(tab.page.text_of(new), Some(drawn.as_str()), "{case}");
    }
}

/// Regenerate in the reply's own element: the page empties the ended reply's element (or
/// shows only a thinking block, which is no reply text) and writes the new reply into it (the
/// sweep's seed 394910863). The element now shows a reply written anew, whose calls run once;
/// the old reply keeps its calls.
#[test]
fn a_reply_regenerated_in_its_own_element_is_a_new_reply() {
    for (streaming, first) in [(true, ""), (false, ""), (true, "Sure"), (false, "Sure")] {
        let case = format!("streaming={streaming} first={first:?}");
        let mut tab = Tab::new("load-1");
        fresh_reply(&mut tab);
        tab.look(&[user(1), same(2), user(3), a(4, CODE)], true);
        tab.wait(100);
        tab.look(&[user(1), same(2), user(3), same(4)], false);
        assert_eq!(
            tab.states(),
            [TurnState::History, TurnState::Done],
            "{case}"
        );
        let old = tab.ids()[1].clone();
        let mut live = tab
            .look(&[user(1), same(2), user(3), a(4, first)], streaming)
            .reports;
        tab.wait(100);
        live.extend(
            tab.look(
                &[user(1), same(2), user(3), a(4, "Sure, adding")],
                streaming,
            )
            .reports,
        );
        tab.wait(100);
        live.extend(
            tab.look(&[user(1), same(2), user(3), a(4, CODE)], streaming)
                .reports,
        );
        tab.wait(SETTLE_MS);
        live.extend(
            tab.look(&[user(1), same(2), user(3), same(4)], false)
                .reports,
        );
        let ids = tab.ids();
        assert_eq!(ids.len(), 3, "{case}: {ids:?}");
        assert_eq!(ids[1], old, "{case}");
        assert_eq!(
            tab.states(),
            [TurnState::History, TurnState::Done, TurnState::Done],
            "{case}"
        );
        only_this_reply_ran_and_ended_once(&live, &ids[2], &case);
        assert_eq!(tab.page.text_of(&ids[2]), Some(CODE), "{case}");
    }
}

/// A reply being written whose element leaves and nothing shows it again (a branch switched
/// away, a render nothing recognises) ends once its text has been still for [`SETTLE_MS`]:
/// its calls are answered, and the page is looked at again until then (the sweep's seed
/// 618306420 kept such a reply live for ever).
#[test]
fn a_reply_whose_element_left_for_good_ends() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CODE)], false);
    assert_eq!(tab.states(), [TurnState::History, TurnState::Live]);
    tab.wait(100);
    let out = tab.look(&[user(1), same(2), user(3)], false);
    assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
    assert_eq!(
        out.rescan_ms,
        Some(SETTLE_MS),
        "looked at again when it would end"
    );
    tab.wait(SETTLE_MS - 1);
    let out = tab.look(&[user(1), same(2), user(3)], false);
    assert_eq!(tab.states(), [TurnState::History, TurnState::Live]);
    assert_eq!(out.rescan_ms, Some(1));
    tab.wait(1);
    let out = tab.look(&[user(1), same(2), user(3)], false);
    assert_eq!(tab.states(), [TurnState::History, TurnState::Done]);
    assert_eq!(live_reports(&out), [(true, "unchanged")]);
}
