//! Transcript tests of the page model (`relay_core::page`): each live behaviour of chat pages
//! as a sequence of looks a content script sends, and what the core decides — which reply is
//! which, whether it is old or live, when it ends, and what a URL change means.

mod page_tab;

use page_tab::*;
use relay_core::page::{
    Move, Observation, OtherTabs, Page, Report, ReportText, TurnSeen, TurnState, SETTLE_MS,
    STOP_QUIET_MS,
};

const CALL: &str = "Sure.\n```json\n{\"tool\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}\n```";

#[test]
fn what_a_page_shows_when_it_loads_is_history_and_a_reply_written_after_a_send_is_live() {
    let mut tab = Tab::new("load-1");
    let out = tab.look(&[user(1), a(2, CALL)], false);
    assert_eq!(tab.states(), [TurnState::History]);
    assert!(out.reports.iter().all(|r| r.history), "{:?}", out.reports);
    tab.send(&[user(1), a(2, CALL), user(3)]);
    tab.wait(50);
    let out = tab.look(&[user(1), a(2, CALL), user(3), a(4, "Sure.")], true);
    assert_eq!(tab.states(), [TurnState::History, TurnState::Live]);
    assert_eq!(live_reports(&out), [(false, "whole")]);
    tab.wait(100);
    let out = tab.look(&[user(1), same(2), user(3), a(4, CALL)], true);
    assert_eq!(live_reports(&out), [(false, "appended")]);
    // The stop control goes: the reply ends once its text has been still a moment.
    tab.wait(10);
    let out = tab.look(&[user(1), same(2), user(3), same(4)], false);
    assert!(out.rescan_ms.is_some(), "the end is pending: look again");
    assert_eq!(tab.states()[1], TurnState::Live);
    tab.wait(STOP_QUIET_MS);
    let out = tab.look(&[user(1), same(2), user(3), same(4)], false);
    assert_eq!(tab.states()[1], TurnState::Done);
    assert_eq!(live_reports(&out), [(true, "unchanged")]);
    assert_eq!(out.rescan_ms, None);
}

#[test]
fn a_site_that_re_renders_per_token_keeps_one_reply() {
    // Every token replaces the reply's element: a new handle each time, with a longer text.
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    let texts = ["Su", "Sure.", "Sure.\n```json", CALL];
    let mut whole = 0;
    for (i, text) in texts.iter().enumerate() {
        tab.wait(100);
        let h = 10 + i as u32;
        let out = tab.look(&[user(1), same(2), user(3), a(h, text)], true);
        for r in &out.reports {
            assert!(!r.history, "{r:?}");
            if matches!(r.text, ReportText::Whole(_)) {
                whole += 1;
            }
        }
    }
    assert_eq!(
        tab.page.turns.len(),
        2,
        "one reply, not one per element: {:?}",
        tab.ids()
    );
    assert_eq!(
        whole, 1,
        "only the first text goes whole; the rest extends it"
    );
    assert_eq!(tab.states(), [TurnState::History, TurnState::Live]);
}

#[test]
fn a_virtualised_list_re_mounting_old_turns_never_makes_them_live() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CALL)], true);
    tab.wait(SETTLE_MS);
    tab.look(&[user(1), same(2), user(3), same(4)], false);
    assert_eq!(tab.states(), [TurnState::History, TurnState::Done]);
    let ids = tab.ids();
    // Scrolled away: both replies unmounted; scrolled back: new elements, same texts.
    tab.look(&[], false);
    tab.wait(500);
    let out = tab.look(
        &[user(21), a(22, "old answer"), user(23), a(24, CALL)],
        false,
    );
    assert_eq!(tab.ids(), ids, "the same replies, by text");
    assert_eq!(tab.states(), [TurnState::History, TurnState::Done]);
    assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
    // The call's turn mounted again with its text rendered a little differently (its code
    // block's button now says "Copied"): the same reply, never live.
    tab.look(&[user(21), same(22), user(23)], false);
    let out = tab.look(
        &[
            user(21),
            same(22),
            user(23),
            a(40, &format!("{CALL}\nCopied")),
        ],
        false,
    );
    assert_eq!(tab.ids(), ids);
    assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
    // An older turn nobody had seen, mounted above the known ones: history.
    let out = tab.look(&[a(30, "a much older answer"), same(22), same(40)], false);
    assert_eq!(
        tab.page.turns.last().map(|t| t.state),
        Some(TurnState::History)
    );
    assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
}

#[test]
fn a_reload_shows_history_with_the_ids_the_replies_had() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CALL)], true);
    tab.wait(STOP_QUIET_MS);
    tab.look(&[user(1), same(2), user(3), same(4)], false);
    let ids = tab.ids();
    tab.instance = "load-2".into();
    let out = tab.look(&[user(1), a(2, "old answer"), user(3), a(4, CALL)], false);
    assert!(out.reset);
    assert_eq!(tab.ids(), ids, "their calls keep their cards");
    assert_eq!(tab.states(), [TurnState::History, TurnState::History]);
    assert!(live_reports(&out).is_empty());
}

#[test]
fn a_worker_restart_mid_reply_goes_on_with_the_same_reply() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, "Sure.")], true);
    // The worker stops; the page model comes back from session storage, without texts.
    let stored = serde_json::to_value(&tab.page).expect("stored");
    tab.page = serde_json::from_value(stored).expect("restored");
    tab.wait(100);
    let out = tab.look(&[user(1), same(2), user(3), same(4)], true);
    assert_eq!(out.resend, [2, 4], "the texts are asked for again");
    let out = tab.look(&[user(1), a(2, "old answer"), user(3), a(4, CALL)], true);
    // The parser lost its text with the worker: the reply goes to it whole.
    assert_eq!(live_reports(&out), [(false, "whole")]);
    assert_eq!(tab.states(), [TurnState::History, TurnState::Live]);
    tab.wait(STOP_QUIET_MS);
    tab.look(&[user(1), same(2), user(3), same(4)], false);
    assert_eq!(tab.states(), [TurnState::History, TurnState::Done]);
}

#[test]
fn a_new_chat_that_gets_its_url_is_the_same_chat_and_another_conversation_starts_over() {
    let mut tab = Tab::new("load-1");
    tab.url = "https://chat.example/".into();
    tab.conversation = None;
    tab.look(&[], false);
    tab.send(&[user(1)]);
    tab.look(&[user(1), a(2, "Sure.")], true);
    // The site gives the new chat its URL while the reply is written.
    tab.url = "https://chat.example/c/9".into();
    tab.conversation = Some("9".into());
    tab.wait(100);
    let out = tab.look(&[user(1), a(2, CALL)], true);
    assert_eq!(
        out.moved,
        Some(("https://chat.example/".into(), Move::Fresh))
    );
    assert!(!out.reset);
    assert_eq!(live_reports(&out), [(false, "appended")]);
    // The page's own "New chat", then another conversation that loads lazily: its replies
    // appear complete with nothing streaming, and are history.
    tab.url = "https://chat.example/c/5".into();
    tab.conversation = Some("5".into());
    let out = tab.look(&[], false);
    assert_eq!(out.moved.map(|m| m.1), Some(Move::Switch));
    assert!(out.reset);
    let out = tab.look(&[user(7), a(8, CALL)], false);
    assert!(live_reports(&out).is_empty());
    tab.wait(SETTLE_MS);
    let out = tab.look(&[user(7), same(8)], false);
    assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
    assert_eq!(tab.states(), [TurnState::History]);
}

#[test]
fn a_reply_that_pauses_after_its_call_ends_on_the_signal_not_on_the_pause() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CALL)], true);
    // Five seconds of nothing, the stop control still shown: still being written.
    for _ in 0..20 {
        tab.wait(250);
        let out = tab.look(&[user(1), same(2), user(3), same(4)], true);
        assert!(out.rescan_ms.is_some());
    }
    assert_eq!(tab.states()[1], TurnState::Live);
    tab.wait(10);
    tab.look(
        &[user(1), same(2), user(3), a(4, &format!("{CALL}\nDone."))],
        true,
    );
    // Send and Stop as one button: the label goes back to Send, the signal is gone.
    tab.wait(STOP_QUIET_MS);
    tab.look(&[user(1), same(2), user(3), same(4)], false);
    assert_eq!(tab.states()[1], TurnState::Done);
}

#[test]
fn without_any_signal_a_reply_ends_after_still_text_and_goes_on_if_it_grows_again() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    let out = tab.look(&[user(1), same(2), user(3), a(4, CALL)], false);
    assert_eq!(
        live_reports(&out),
        [(false, "whole")],
        "live after the send"
    );
    assert_eq!(out.rescan_ms, Some(SETTLE_MS));
    tab.wait(SETTLE_MS);
    let out = tab.look(&[user(1), same(2), user(3), same(4)], false);
    assert_eq!(live_reports(&out), [(true, "unchanged")]);
    // A pause no signal covered: it goes on, and is read again whole (the ledger runs each
    // call once).
    tab.wait(3_000);
    let out = tab.look(
        &[user(1), same(2), user(3), a(4, &format!("{CALL} and more"))],
        false,
    );
    assert_eq!(live_reports(&out), [(false, "whole")]);
    assert_eq!(tab.states()[1], TurnState::Live);
}

#[test]
fn a_reply_ends_at_once_when_a_newer_one_appears_below_it() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CALL)], true);
    tab.send(&[user(1), same(2), user(3), same(4), user(5)]);
    let out = tab.look(
        &[user(1), same(2), user(3), same(4), user(5), a(6, "Next")],
        true,
    );
    assert_eq!(
        tab.states(),
        [TurnState::History, TurnState::Done, TurnState::Live]
    );
    assert_eq!(live_reports(&out), [(true, "unchanged"), (false, "whole")]);
}

#[test]
fn site_ids_come_first() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    let with_id = |h, text| T {
        h,
        text: Some(text),
        id: Some("msg-42"),
        user: false,
    };
    tab.look(&[user(1), same(2), user(3), with_id(4, "Sure.")], true);
    // Re-mounted with another text (a site that re-renders markdown differently): the same
    // reply, by its id.
    tab.wait(100);
    tab.look(&[user(1), same(2), user(3), with_id(9, CALL)], true);
    assert_eq!(tab.ids()[1], "s:msg-42");
    assert_eq!(tab.page.turns.len(), 2);
}

/// Another tab's page on the same conversation.
struct Shown<'a>(&'a Page);

impl OtherTabs for Shown<'_> {
    fn shows(&self, site_id: Option<&str>, text: &str) -> bool {
        self.0.url == URL && self.0.shows(site_id, text)
    }
}

#[test]
fn a_second_tab_on_the_same_conversation_never_takes_the_first_tabs_reply() {
    let mut first = Tab::new("tab-1");
    let mut second = Tab::new("tab-2");
    fresh_reply(&mut first);
    second.look(&[user(1), a(2, "old answer")], false);
    // The user sends in the first tab; the site mirrors the reply into the second as it grows.
    let mut text = String::from("Sure, I will add");
    first.look(&[user(1), same(2), user(3), a(4, &text)], true);
    second.look_with(
        &[user(1), same(2), user(3), a(4, &text)],
        false,
        false,
        &Shown(&first.page),
    );
    for _ in 0..3 {
        text.push_str(" more");
        first.wait(100);
        second.wait(100);
        first.look(&[user(1), same(2), user(3), a(4, &text)], true);
        let out = second.look_with(
            &[user(1), same(2), user(3), a(4, &text)],
            false,
            false,
            &Shown(&first.page),
        );
        assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
    }
    assert_eq!(first.states(), [TurnState::History, TurnState::Live]);
    assert_eq!(second.states(), [TurnState::History, TurnState::History]);
    // The second tab's own send: its reply is its own.
    second.look_with(
        &[user(1), same(2), user(3), same(4), user(5)],
        false,
        true,
        &Shown(&first.page),
    );
    let out = second.look_with(
        &[user(1), same(2), user(3), same(4), user(5), a(6, CALL)],
        true,
        false,
        &Shown(&first.page),
    );
    assert_eq!(live_reports(&out), [(false, "whole")]);
}

#[test]
fn a_new_user_turn_is_a_send_even_when_the_page_sent_it_itself() {
    let mut tab = Tab::new("load-1");
    tab.look(&[user(1), a(2, "old answer")], false);
    // No `submitted`: the user pressed the site's own Send; the turn appears.
    tab.look(&[user(1), same(2), user(3)], false);
    let out = tab.look(&[user(1), same(2), user(3), a(4, CALL)], false);
    assert_eq!(live_reports(&out), [(false, "whole")]);
}

#[test]
fn appended_text_that_does_not_extend_what_the_core_has_is_asked_for_whole() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, "Sure.")], true);
    let obs = Observation {
        page: "load-1".into(),
        conversation: Some("1".into()),
        pattern: true,
        streaming: true,
        turns: vec![TurnSeen {
            h: 4,
            text: Some(" more".into()),
            at: Some(99),
            ..TurnSeen::default()
        }],
        ..Observation::default()
    };
    let out = tab.page.observe(&obs, URL, 1_200, &());
    assert_eq!(out.resend, [4]);
    assert!(out.reports.is_empty());
    let good = Observation {
        turns: vec![TurnSeen {
            h: 4,
            text: Some(" more".into()),
            at: Some(5),
            ..TurnSeen::default()
        }],
        ..obs
    };
    let out = tab.page.observe(&good, URL, 1_300, &());
    assert_eq!(
        out.reports,
        [Report {
            message_id: tab.ids()[1].clone(),
            text: ReportText::Appended {
                at: 5,
                text: " more".into()
            },
            done: false,
            history: false,
        }]
    );
    assert_eq!(tab.page.text_of(&tab.ids()[1]), Some("Sure. more"));
}

#[test]
fn after_a_reply_ends_a_complete_looking_new_turn_waits_for_a_send() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CALL)], true);
    tab.wait(STOP_QUIET_MS);
    tab.look(&[user(1), same(2), user(3), same(4)], false);
    // A turn with a text nobody saw (a site re-rendering the last reply as another element
    // with other text), nothing streaming, nothing sent: never live.
    let out = tab.look(
        &[user(1), same(2), user(3), a(9, "A rendered summary card")],
        false,
    );
    assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
    tab.wait(SETTLE_MS);
    let out = tab.look(&[user(1), same(2), user(3), same(9)], false);
    assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
}

#[test]
fn a_reply_unmounted_while_the_next_one_is_written_ends() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CALL)], true);
    // The result went in and the next reply streams; the list keeps only the last two turns.
    tab.send(&[user(3), same(4), user(5)]);
    let out = tab.look(&[user(5), a(6, "Final")], true);
    assert_eq!(
        tab.states(),
        [TurnState::History, TurnState::Done, TurnState::Live]
    );
    assert_eq!(live_reports(&out), [(false, "whole"), (true, "unchanged")]);
}

#[test]
fn a_turn_mounted_again_with_other_line_breaks_is_the_same_reply() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    tab.look(&[user(1), same(2), user(3), a(4, CALL)], true);
    tab.wait(STOP_QUIET_MS);
    tab.look(&[user(1), same(2), user(3), same(4)], false);
    let ids = tab.ids();
    tab.look(&[user(1), same(2)], false);
    let laid_out = CALL.replace('\n', "\n\n");
    let out = tab.look(&[user(1), same(2), user(3), a(9, &laid_out)], false);
    assert_eq!(tab.ids(), ids);
    assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
}

#[test]
fn a_long_conversation_keeps_the_newest_texts_and_still_knows_the_old_replies() {
    use relay_core::page::MAX_TEXT_BYTES;
    let mut tab = Tab::new("load-1");
    let big: Vec<String> = (0..8)
        .map(|i| format!("reply {i} ") + &"x".repeat(MAX_TEXT_BYTES / 4))
        .collect();
    let turns: Vec<T<'_>> = big
        .iter()
        .enumerate()
        .map(|(i, t)| a(i as u32 + 1, t))
        .collect();
    tab.look(&turns, false);
    let kept: usize = tab
        .page
        .turns
        .iter()
        .filter_map(|t| t.text.as_ref())
        .map(String::len)
        .sum();
    assert!(kept <= MAX_TEXT_BYTES, "{kept} bytes kept");
    assert!(
        tab.page.turns.last().is_some_and(|t| t.text.is_some()),
        "the newest text stays"
    );
    // Nothing is asked for again, and the oldest, mounted again, is the reply it was.
    let unchanged: Vec<T<'_>> = (1..=8).map(same).collect();
    let out = tab.look(&unchanged, false);
    assert!(out.resend.is_empty(), "{:?}", out.resend);
    let ids = tab.ids();
    let mut again = vec![a(100, &big[0])];
    again.extend((2..=8).map(|h| T { h, ..same(h) }));
    tab.look(&again, false);
    assert_eq!(tab.ids(), ids);
}

/// Another conversation opened from a sidebar without a URL change while the last reply was
/// still being written as far as the core knew (the look that shows it ended came later): the
/// reply's element goes and the other conversation's turns come, complete. They are history:
/// their calls never run (the sweep's seed 1946257797).
#[test]
fn another_conversation_shown_while_a_reply_was_being_written_is_history() {
    for streaming in [false, true] {
        // The generic adapter reports no user turns: only the sends it sees.
        let mut tab = Tab::new("load-1");
        tab.look(&[a(2, "old answer")], false);
        tab.send(&[a(2, "old answer")]);
        tab.wait(100);
        tab.look(&[same(2), a(4, "The sum is 5.")], true);
        tab.wait(20);
        tab.look(&[a(10, "Add 7 and 8."), a(11, CALL)], streaming);
        tab.wait(20);
        tab.look(&[a(11, CALL)], streaming);
        tab.wait(SETTLE_MS);
        let out = tab.look(&[same(11)], false);
        assert!(live_reports(&out).is_empty(), "{:?}", out.reports);
        assert_eq!(
            tab.states(),
            [
                TurnState::History,
                TurnState::Done,
                TurnState::History,
                TurnState::History
            ],
            "streaming={streaming}"
        );
    }
}

/// Sweep seed 32759349 (bursts, a thinking block, Regenerate, then ‹ ›): the final answer had
/// begun with nothing but white space ("\n\n") when the page drew the whole conversation again
/// in new elements. The reply with the call, drawn again above the answer, begins with that
/// white space too: it is the reply it was, never more of the answer being written (which
/// made its call run once more).
#[test]
fn a_reply_drawn_again_above_an_answer_that_showed_only_white_space_is_the_reply_it_was() {
    let mut tab = Tab::new("load-1");
    fresh_reply(&mut tab);
    let reply = format!("\n\n{CALL}");
    tab.look(&[user(1), same(2), user(3), a(4, &reply)], true);
    tab.wait(STOP_QUIET_MS);
    tab.look(&[user(1), same(2), user(3), same(4)], false);
    assert_eq!(tab.states(), [TurnState::History, TurnState::Done]);
    let call_id = tab.ids()[1].clone();
    // The results go back; the answer starts with white space only.
    tab.send(&[user(1), same(2), user(3), same(4), user(5)]);
    tab.wait(100);
    tab.look(
        &[user(1), same(2), user(3), same(4), user(5), a(6, "\n\n")],
        false,
    );
    assert_eq!(tab.states()[2], TurnState::Live);
    // The whole conversation drawn again, every turn a new element.
    tab.wait(100);
    let answer = "\n\nFinal answer: 5.";
    let out = tab.look(
        &[
            user(11),
            a(12, "old answer"),
            user(13),
            a(14, &reply),
            user(15),
            a(16, answer),
        ],
        false,
    );
    for r in &out.reports {
        let text = match &r.text {
            ReportText::Whole(t) | ReportText::Appended { text: t, .. } => t.as_str(),
            _ => "",
        };
        assert!(
            r.history || !text.contains("\"tool\""),
            "the call's reply taken for a reply being written: {r:?}"
        );
    }
    assert!(tab.ids().contains(&call_id));
    tab.wait(SETTLE_MS);
    let out = tab.look(
        &[user(11), same(12), user(13), same(14), user(15), same(16)],
        false,
    );
    assert!(
        out.reports.iter().all(|r| r.message_id == call_id
            || !matches!(&r.text, ReportText::Whole(t) if t.contains("\"tool\""))),
        "{:?}",
        out.reports
    );
    assert_eq!(
        tab.ids().iter().filter(|id| **id == call_id).count(),
        1,
        "{:?}",
        tab.ids()
    );
}
