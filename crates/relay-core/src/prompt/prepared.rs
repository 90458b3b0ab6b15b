//! A selection's tools rendered once, so that a prompt for any options is a concatenation.
//!
//! Rendering the tool list is nearly all of a prompt's cost (1,000 tools: milliseconds), and it
//! depends only on the tools: they change on `tools/list_changed`, the options (strategy, limits,
//! custom instructions, site note) change per chat. [`PreparedTools`] keeps the rendered list,
//! the option-free sections before it and their character and token-estimate counts; each
//! prompt then writes those texts into one buffer of the final size around the few short
//! sections the options decide, and counts only those.

use super::sections::{self, Parts};
use super::tokens::{estimate_from_features, token_features, Features};
use super::{Diagnostic, Group, Prompt, PromptOptions, Strategy};

/// A text with its length in characters and its token-estimate features.
#[derive(Debug, Clone, PartialEq)]
struct Counted {
    text: String,
    chars: usize,
    features: Features,
}

impl Counted {
    fn new(text: String) -> Self {
        Counted {
            chars: text.chars().count(),
            features: token_features(&text),
            text,
        }
    }
}

/// The tools of a selection, rendered for prompts (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedTools {
    /// intro, call format, waiting, results, finishing: none depends on the options.
    head: Counted,
    /// The tool list.
    tools: Counted,
    tool_count: usize,
    /// What rendering the tools found (cut texts, schema problems, duplicate names).
    diagnostics: Vec<Diagnostic>,
}

/// The separator between sections.
const GAP: &str = "\n\n";

impl PreparedTools {
    /// Renders `groups` (bounded already, none empty, at least one tool). `cut`: the tools
    /// whose own texts bounding cut; rendering adds those whose parameter texts it cut.
    pub(crate) fn from_groups(
        groups: &[&Group<'_>],
        diagnostics: Vec<Diagnostic>,
        mut cut: Vec<String>,
    ) -> Self {
        let defaults = PromptOptions::default();
        let parts = Parts::new(groups, &defaults);
        let mut head = String::with_capacity(1024);
        for name in ["intro", "call_format", "waiting", "results", "finishing"] {
            if !head.is_empty() {
                head.push_str(GAP);
            }
            head.push_str(&parts.section(name).unwrap_or_default());
        }
        let mut all = diagnostics;
        cut.extend(parts.cut.iter().cloned());
        all.extend(super::text_cut(&cut));
        all.extend(parts.diagnostics.iter().cloned());
        PreparedTools {
            head: Counted::new(head),
            tool_count: groups.iter().map(|g| g.tools.len()).sum(),
            tools: Counted::new(parts.tools),
            diagnostics: all,
        }
    }

    /// The prompt for these tools with `options`; `None` when the strategy is `Disabled`.
    pub fn prompt(&self, options: &PromptOptions) -> Option<Prompt> {
        if options.strategy == Strategy::Disabled {
            return None;
        }
        let strategy = sections::strategy(options);
        let site = sections::site(options);
        let custom = sections::custom_instructions(options);
        let small = [strategy.as_str(), site.as_str()];
        let len = self.head.text.len()
            + self.tools.text.len()
            + custom.len()
            + small.iter().map(|s| s.len()).sum::<usize>()
            + 4 * GAP.len();
        let mut text = String::with_capacity(len);
        text.push_str(&self.head.text);
        for part in small {
            if !part.is_empty() {
                text.push_str(GAP);
                text.push_str(part);
            }
        }
        text.push_str(GAP);
        text.push_str(&self.tools.text);
        if !custom.is_empty() {
            text.push_str(GAP);
            text.push_str(&custom);
        }
        // Sections neither start nor end with white space, so the counts of the parts add up
        // to the counts of the whole (a test compares them with counting the whole text).
        let start = self.head.text.len();
        let tools_at = text.len() - self.tools.text.len() - custom_len(&custom);
        let options_part = &text[start..tools_at];
        let custom_part = &text[tools_at + self.tools.text.len()..];
        let mut features = token_features(options_part);
        for (f, (a, (b, c))) in features.iter_mut().zip(
            self.head
                .features
                .iter()
                .zip(self.tools.features.iter().zip(token_features(custom_part))),
        ) {
            *f += a + b + c;
        }
        let chars = self.head.chars
            + self.tools.chars
            + options_part.chars().count()
            + custom_part.chars().count();
        Some(Prompt {
            text,
            chars,
            tokens_estimate: estimate_from_features(&features),
            tools: self.tool_count,
            diagnostics: self.diagnostics.clone(),
        })
    }

    /// Number of tools listed.
    pub fn tools(&self) -> usize {
        self.tool_count
    }

    /// What rendering the tools found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

fn custom_len(custom: &str) -> usize {
    if custom.is_empty() {
        0
    } else {
        GAP.len() + custom.len()
    }
}
