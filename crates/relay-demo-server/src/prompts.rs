//! Prompt texts served by `prompts/get`.
//!
//! `context_engineering` is a template in the style of a context-engineering server: fixed
//! sections (persona, output format) plus `${prefix:key}` placeholders that the *client*
//! resolves before sending the text to a model. The server leaves them verbatim on purpose;
//! resolving them here would hide the mechanism the demo exists to show.

/// Placeholders that appear verbatim in every `context_engineering` template.
pub const CONTEXT_PLACEHOLDERS: [&str; 6] = [
    "${local:current_time}",
    "${local:user_intent}",
    "${local:model_name}",
    "${mcp:resource:demo://docs/guide}",
    "${mcp:tool:dynamic_tool_selection}",
    "${local:tool_history}",
];

/// Languages the templates exist in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Language {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

/// An unknown `language` argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsupported language {0:?}: use \"en\" or \"zh\"")]
pub struct LanguageError(pub String);

impl Language {
    /// Parses `en`/`zh` (any case, region subtags such as `zh-CN` allowed); absent means English.
    pub fn parse(tag: Option<&str>) -> Result<Self, LanguageError> {
        let Some(tag) = tag.map(str::trim).filter(|t| !t.is_empty()) else {
            return Ok(Self::En);
        };
        let primary = tag.split(['-', '_']).next().unwrap_or_default();
        if primary.eq_ignore_ascii_case("en") {
            Ok(Self::En)
        } else if primary.eq_ignore_ascii_case("zh") {
            Ok(Self::Zh)
        } else {
            Err(LanguageError(tag.to_owned()))
        }
    }
}

const SIMPLE_CHAT_EN: &str = "\
You are a friendly assistant. Answer clearly and briefly.

Current time: ${local:current_time}
Model: ${local:model_name}

Question: {user_intent}

If one of the available tools gives a better answer than you can from memory, use it; otherwise answer directly.";

const SIMPLE_CHAT_ZH: &str = "\
你是一个友好的助手，请简洁明了地回答。

当前时间：${local:current_time}
模型：${local:model_name}

用户问题：{user_intent}

如果某个可用工具能给出更好的答案，就调用它；否则直接回答。";

const CONTEXT_ENGINEERING_EN: &str = "\
[Persona] You are a context-engineering assistant. You decide step by step what information the task needs and which tool can provide it.

[State]
Time: ${local:current_time}
User intent: ${local:user_intent}
Model: ${local:model_name}

[Reference]
${mcp:resource:demo://docs/guide}

[Available tools]
${mcp:tool:dynamic_tool_selection}

[Tool history]
${local:tool_history}

[Format] Work in rounds. Each round is:
Thought: <analyse the request; decide whether you need outside information and which tool gives it>
Action: <exactly one tool call, or final_answer: <your answer>>
Observation: <the tool's result; it is filled in after the call runs, do not invent it>

Stop after each Action that calls a tool and wait for its Observation. When you can answer, write \"Action: final_answer: ...\" and stop.";

const CONTEXT_ENGINEERING_ZH: &str = "\
[人设] 你是一名上下文工程助手，逐步判断任务需要哪些信息，以及哪个工具能提供这些信息。

[当前状态]
时间：${local:current_time}
用户意图：${local:user_intent}
模型：${local:model_name}

[参考资料]
${mcp:resource:demo://docs/guide}

[可用工具]
${mcp:tool:dynamic_tool_selection}

[工具调用历史]
${local:tool_history}

[格式] 分轮作答，每一轮包括：
思考：<分析问题，判断是否需要外部信息，以及由哪个工具提供>
行动：<恰好一次工具调用，或者 final_answer: <你的答案>>
观察：<工具返回的结果，由调用执行后填入，不要自行编造>

每次调用工具的行动之后停下，等待观察结果。能够回答时，写出“行动：final_answer: ……”并结束。";

/// The `simple_chat` text with the user's intent filled in; the `${local:*}` placeholders stay.
pub fn simple_chat(language: Language, user_intent: &str) -> String {
    let template = match language {
        Language::En => SIMPLE_CHAT_EN,
        Language::Zh => SIMPLE_CHAT_ZH,
    };
    template.replacen("{user_intent}", user_intent.trim(), 1)
}

/// The `context_engineering` template, placeholders intact.
pub fn context_engineering(language: Language) -> &'static str {
    match language {
        Language::En => CONTEXT_ENGINEERING_EN,
        Language::Zh => CONTEXT_ENGINEERING_ZH,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_context_template_carries_every_placeholder_once() {
        for language in [Language::En, Language::Zh] {
            let text = context_engineering(language);
            for placeholder in CONTEXT_PLACEHOLDERS {
                assert_eq!(
                    text.matches(placeholder).count(),
                    1,
                    "{language:?} {placeholder}"
                );
            }
        }
    }

    #[test]
    fn simple_chat_fills_only_the_intent() {
        // An intent that itself looks like a placeholder must not be expanded or break the text.
        let text = simple_chat(Language::En, "  what is ${local:model_name}?  ");
        assert!(text.contains("Question: what is ${local:model_name}?\n"));
        assert!(!text.contains("{user_intent}"));
        assert!(text.contains("${local:current_time}"));
        assert!(simple_chat(Language::Zh, "你好").contains("用户问题：你好"));
    }

    #[test]
    fn language_tags() {
        let cases = [
            (None, Ok(Language::En)),
            (Some(""), Ok(Language::En)),
            (Some("EN"), Ok(Language::En)),
            (Some("en-US"), Ok(Language::En)),
            (Some("zh"), Ok(Language::Zh)),
            (Some("zh_CN"), Ok(Language::Zh)),
            (Some("fr"), Err(LanguageError("fr".into()))),
        ];
        for (tag, expected) in cases {
            assert_eq!(Language::parse(tag), expected, "{tag:?}");
        }
    }
}
