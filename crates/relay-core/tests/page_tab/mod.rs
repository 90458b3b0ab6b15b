//! A tab's content script for the page model's transcript tests: each look it sends, its
//! clock, and the turns as a look shows them.
#![allow(dead_code)]

use relay_core::page::{Observation, OtherTabs, Outcome, Page, ReportText, TurnSeen, TurnState};

pub const URL: &str = "https://chat.example/c/1";

/// One tab's content script and its clock.
pub struct Tab {
    pub page: Page,
    pub instance: String,
    pub url: String,
    pub conversation: Option<String>,
    pub now: u64,
}

/// A turn as a look shows it: handle, text (when sent), site id.
#[derive(Clone, Copy)]
pub struct T<'a> {
    pub h: u32,
    pub text: Option<&'a str>,
    pub id: Option<&'a str>,
    pub user: bool,
}

pub fn a(h: u32, text: &str) -> T<'_> {
    T {
        h,
        text: Some(text),
        id: None,
        user: false,
    }
}

/// An assistant turn whose text the content script does not send again (unchanged).
pub fn same(h: u32) -> T<'static> {
    T {
        h,
        text: None,
        id: None,
        user: false,
    }
}

pub fn user(h: u32) -> T<'static> {
    T {
        h,
        text: None,
        id: None,
        user: true,
    }
}

impl Tab {
    pub fn new(instance: &str) -> Tab {
        Tab {
            page: Page::default(),
            instance: instance.into(),
            url: URL.into(),
            conversation: Some("1".into()),
            now: 1_000,
        }
    }

    pub fn look_with(
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

    pub fn look(&mut self, turns: &[T<'_>], streaming: bool) -> Outcome {
        self.look_with(turns, streaming, false, &())
    }

    pub fn send(&mut self, turns: &[T<'_>]) -> Outcome {
        self.look_with(turns, false, true, &())
    }

    pub fn wait(&mut self, ms: u64) {
        self.now += ms;
    }

    /// Each known reply's state, in page order.
    pub fn states(&self) -> Vec<TurnState> {
        self.page.turns.iter().map(|t| t.state).collect()
    }

    pub fn ids(&self) -> Vec<String> {
        self.page.turns.iter().map(|t| t.id.clone()).collect()
    }
}

/// The reports that run something (not history), as (done, text kind).
pub fn live_reports(out: &Outcome) -> Vec<(bool, &'static str)> {
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
pub fn fresh_reply(tab: &mut Tab) {
    tab.look(&[user(1), a(2, "old answer")], false);
    tab.send(&[user(1), a(2, "old answer"), user(3)]);
}
