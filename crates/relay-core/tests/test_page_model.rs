//! Transcript tests of the page model (`relay_core::page`): each live behaviour of chat pages
//! as a sequence of looks a content script sends, and what the core decides — which reply is
//! which, whether it is old or live, when it ends, and what a URL change means.

use relay_core::page::{
    Move, Observation, OtherTabs, Outcome, Page, Report, ReportText, TurnSeen, TurnState,
    SETTLE_MS, STOP_QUIET_MS,
};

const URL: &str = "https://chat.example/c/1";

/// One tab's content script and its clock.
struct Tab {
    page: Page,
    instance: String,
    url: String,
    conversation: Option<String>,
    now: u64,
}

/// A turn as a look shows it: handle, text (when sent), site id.
#[derive(Clone, Copy)]
struct T<'a> {
    h: u32,
    text: Option<&'a str>,
    id: Option<&'a str>,
    user: bool,
}

fn a(h: u32, text: &str) -> T<'_> {
    T {
        h,
        text: Some(text),
        id: None,
        user: false,
    }
}

/// An assistant turn whose text the content script does not send again (unchanged).
fn same(h: u32) -> T<'static> {
    T {
        h,
        text: None,
        id: None,
        user: false,
    }
}

fn user(h: u32) -> T<'static> {
    T {
        h,
        text: None,
        id: None,
        user: true,
    }
}

impl Tab {
    fn new(instance: &str) -> Tab {
        Tab {
            page: Page::default(),
            instance: instance.into(),
            url: URL.into(),
            conversation: Some("1".into()),
            now: 1_000,
        }
    }

    fn look_with(
        &mut self,
        turns: &[T<'_>],
        streaming: bool,
        submitted: bool,
        others: &impl OtherTabs,
    ) -> Outcome {
        let obs = Observation {
            page: self.instance.clone(),
            conversation: self.conversation.clone(),
            pattern: true,
            streaming,
            submitted,
            turns: turns
                .iter()
                .map(|t| TurnSeen {
                    h: t.h,
                    user: t.user,
                    id: t.id.map(str::to_owned),
                    text: t.text.map(str::to_owned),
                    at: None,
                })
                .collect(),
        };
        self.page.observe(&obs, &self.url, self.now, others)
    }

    fn look(&mut self, turns: &[T<'_>], streaming: bool) -> Outcome {
        self.look_with(turns, streaming, false, &())
    }

    fn send(&mut self, turns: &[T<'_>]) -> Outcome {
        self.look_with(turns, false, true, &())
    }

    fn wait(&mut self, ms: u64) {
        self.now += ms;
    }

    /// Each known reply's state, in page order.
    fn states(&self) -> Vec<TurnState> {
        self.page.turns.iter().map(|t| t.state).collect()
    }

    fn ids(&self) -> Vec<String> {
        self.page.turns.iter().map(|t| t.id.clone()).collect()
    }
}

/// The reports that run something (not history), as (done, text kind).
fn live_reports(out: &Outcome) -> Vec<(bool, &'static str)> {
    out.reports
        .iter()
        .filter(|r| !r.history)
        .map(|r| {
            let kind = match r.text {
                ReportText::Unchanged => "unchanged",
                ReportText::Whole(_) => "whole",
                ReportText::Appended { .. } => "appended",
            };
            (r.done, kind)
        })
        .collect()
}

/// A page with one old exchange, then the user's send and a reply written in `steps` texts.
fn fresh_reply(tab: &mut Tab) {
    tab.look(&[user(1), a(2, "old answer")], false);
    tab.send(&[user(1), a(2, "old answer"), user(3)]);
}

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
        assert!(
            live.iter().all(|r| r.message_id == ids[2] && !r.history),
            "streaming={streaming}: {live:?}"
        );
        assert_eq!(
            live.iter().filter(|r| r.done).count(),
            1,
            "streaming={streaming}: {live:?}"
        );
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
        assert!(
            live.iter().all(|r| r.message_id == ids[2] && !r.history),
            "{case}: {live:?}"
        );
        assert_eq!(
            live.iter().filter(|r| r.done).count(),
            1,
            "{case}: {live:?}"
        );
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
