//! The bundled documents and the BM25 index behind the `retrieve` tool.
//!
//! The documents are compiled into the binary so the demo works offline. Ranking is Okapi BM25
//! over a tokenizer that handles both English (lower-cased alphanumeric words) and Chinese
//! (character bigrams, since Chinese is written without spaces): enough to show a relevance
//! ranked retrieval tool without pulling in a search engine.

use std::collections::HashMap;
use std::sync::LazyLock;

/// One bundled document.
#[derive(Debug)]
#[non_exhaustive]
pub struct Document {
    /// Stable id, also the last segment of its `demo://docs/{id}` URI.
    pub id: &'static str,
    /// BCP 47 language tag of the text.
    pub lang: &'static str,
    /// Markdown; the first line is a `# ` heading that serves as the title.
    pub text: &'static str,
}

impl Document {
    /// The first heading, without its `#` marks.
    pub fn title(&self) -> &'static str {
        self.text
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches('#')
            .trim()
    }

    /// `demo://docs/{id}`.
    pub fn uri(&self) -> String {
        format!("{DOCS_URI_PREFIX}{}", self.id)
    }
}

/// Prefix of every document URI.
pub const DOCS_URI_PREFIX: &str = "demo://docs/";

/// Id of the user guide, which is also served as the `demo://docs/guide` resource.
pub const GUIDE_ID: &str = "guide";

/// Every bundled document; the guide first.
pub static DOCUMENTS: &[Document] = &[
    Document {
        id: GUIDE_ID,
        lang: "en",
        text: include_str!("docs/guide.md"),
    },
    Document {
        id: "mcp-overview",
        lang: "en",
        text: include_str!("docs/mcp-overview.md"),
    },
    Document {
        id: "mcp-transports",
        lang: "en",
        text: include_str!("docs/mcp-transports.md"),
    },
    Document {
        id: "relay-product",
        lang: "en",
        text: include_str!("docs/relay-product.md"),
    },
    Document {
        id: "tool-calls",
        lang: "en",
        text: include_str!("docs/tool-calls.md"),
    },
    Document {
        id: "safety-policy",
        lang: "en",
        text: include_str!("docs/safety-policy.md"),
    },
    Document {
        id: "context-engineering-zh",
        lang: "zh",
        text: include_str!("docs/context-engineering-zh.md"),
    },
    Document {
        id: "mcp-zh",
        lang: "zh",
        text: include_str!("docs/mcp-zh.md"),
    },
];

/// The document with this id.
pub fn document(id: &str) -> Option<&'static Document> {
    DOCUMENTS.iter().find(|doc| doc.id == id)
}

/// The user guide.
pub fn guide() -> &'static Document {
    // DOCUMENTS is a literal that starts with the guide; the test below pins it.
    &DOCUMENTS[0]
}

/// The index over [`DOCUMENTS`], built on first use.
pub fn index() -> &'static Index {
    static INDEX: LazyLock<Index> = LazyLock::new(|| Index::build(DOCUMENTS));
    &INDEX
}

/// Term-frequency saturation: the usual BM25 default.
const K1: f64 = 1.2;
/// Length normalisation: the usual BM25 default.
const B: f64 = 0.75;

#[derive(Debug)]
struct DocStats {
    term_freq: HashMap<String, u32>,
    len: u32,
}

/// A BM25 index over a fixed set of documents.
#[derive(Debug)]
pub struct Index {
    docs: &'static [Document],
    stats: Vec<DocStats>,
    doc_freq: HashMap<String, u32>,
    avg_len: f64,
}

/// One ranked result.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Hit {
    /// The matching document.
    pub doc: &'static Document,
    /// BM25 score, > 0.
    pub score: f64,
}

impl Index {
    /// Indexes `docs`; titles count twice because a title match is the strongest signal in
    /// documents this short.
    pub fn build(docs: &'static [Document]) -> Self {
        let mut doc_freq: HashMap<String, u32> = HashMap::new();
        let stats: Vec<DocStats> = docs
            .iter()
            .map(|doc| {
                let mut term_freq: HashMap<String, u32> = HashMap::new();
                let mut len = 0;
                for term in tokenize(doc.text).chain(tokenize(doc.title())) {
                    *term_freq.entry(term).or_default() += 1;
                    len += 1;
                }
                for term in term_freq.keys() {
                    *doc_freq.entry(term.clone()).or_default() += 1;
                }
                DocStats { term_freq, len }
            })
            .collect();
        let total: u64 = stats.iter().map(|s| u64::from(s.len)).sum();
        let avg_len = if stats.is_empty() {
            1.0
        } else {
            total as f64 / stats.len() as f64
        };
        Self {
            docs,
            stats,
            doc_freq,
            avg_len,
        }
    }

    /// Number of indexed documents.
    pub fn document_count(&self) -> usize {
        self.docs.len()
    }

    /// Whether `query` has at least one searchable term.
    pub fn has_terms(query: &str) -> bool {
        tokenize(query).next().is_some()
    }

    /// The `top_k` best documents for `query`, best first; documents sharing no term with the
    /// query are left out, so fewer than `top_k` may come back.
    pub fn search(&self, query: &str, top_k: usize) -> Vec<Hit> {
        let mut terms: Vec<String> = tokenize(query).collect();
        terms.sort_unstable();
        terms.dedup();
        let n = self.docs.len() as f64;
        let mut hits: Vec<Hit> = self
            .docs
            .iter()
            .zip(&self.stats)
            .filter_map(|(doc, stats)| {
                let norm = K1 * (1.0 - B + B * f64::from(stats.len) / self.avg_len);
                let score: f64 = terms
                    .iter()
                    .filter_map(|term| {
                        let tf = f64::from(*stats.term_freq.get(term)?);
                        let df = f64::from(self.doc_freq.get(term).copied().unwrap_or(0));
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        Some(idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .sum();
                (score > 0.0).then_some(Hit { doc, score })
            })
            .collect();
        // Ties fall back to corpus order so results are reproducible.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(top_k);
        hits
    }
}

/// Scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'     // Hiragana, Katakana
        | '\u{3400}'..='\u{4DBF}'   // CJK Extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK Unified Ideographs
        | '\u{AC00}'..='\u{D7AF}'   // Hangul syllables
        | '\u{F900}'..='\u{FAFF}'   // CJK Compatibility Ideographs
        | '\u{20000}'..='\u{2FA1F}' // CJK Extensions B.. and supplements
    )
}

/// Lower-cased alphanumeric words of two or more characters (single letters carry no meaning in
/// English), and bigrams of CJK runs (a lone CJK character stays a unigram).
fn tokenize(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || loop {
        let c = chars.next()?;
        if is_cjk(c) {
            let mut run = vec![c];
            while let Some(&next) = chars.peek() {
                if !is_cjk(next) {
                    break;
                }
                run.push(next);
                chars.next();
            }
            if run.len() == 1 {
                return Some(vec![c.to_string()]);
            }
            return Some(run.windows(2).map(|w| w.iter().collect()).collect());
        }
        if c.is_alphanumeric() {
            let mut word: String = c.to_lowercase().collect();
            while let Some(&next) = chars.peek() {
                if !next.is_alphanumeric() || is_cjk(next) {
                    break;
                }
                word.extend(next.to_lowercase());
                chars.next();
            }
            if word.chars().count() >= 2 || word.chars().all(|c| c.is_ascii_digit()) {
                return Some(vec![word]);
            }
        }
    })
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_splits_english_words_and_chinese_bigrams() {
        let cases: &[(&str, &[&str])] = &[
            (
                "Streamable HTTP, a session-id!",
                &["streamable", "http", "session", "id"],
            ),
            ("上下文工程", &["上下", "下文", "文工", "工程"]),
            ("MCP协议 v2", &["mcp", "协议", "v2"]),
            ("表 a 7", &["表", "7"]),
            ("", &[]),
        ];
        for (text, expected) in cases {
            let got: Vec<String> = tokenize(text).collect();
            assert_eq!(&got, expected, "{text}");
        }
    }

    #[test]
    fn documents_are_well_formed() {
        assert_eq!(guide().id, GUIDE_ID);
        assert!((6..=10).contains(&DOCUMENTS.len()));
        for doc in DOCUMENTS {
            assert!(doc.text.starts_with("# "), "{} needs a heading", doc.id);
            assert!(!doc.title().is_empty());
            assert_eq!(document(doc.id).map(|d| d.id), Some(doc.id));
        }
    }

    #[test]
    fn queries_rank_the_expected_document_first() {
        let cases = [
            ("Mcp-Session-Id header and SSE reconnect", "mcp-transports"),
            ("what is the model context protocol", "mcp-overview"),
            ("approval policy for destructive tools", "safety-policy"),
            ("chrome extension side panel", "relay-product"),
            ("parse fenced json tool call", "tool-calls"),
            ("上下文工程 占位符", "context-engineering-zh"),
            ("模型上下文协议是什么", "mcp-zh"),
            ("demo server user guide notes", "guide"),
        ];
        for (query, expected) in cases {
            let hits = index().search(query, 3);
            let ranked: Vec<_> = hits.iter().map(|h| (h.doc.id, h.score)).collect();
            assert_eq!(
                hits.first().map(|h| h.doc.id),
                Some(expected),
                "{query}: {ranked:?}"
            );
            assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        }
    }

    #[test]
    fn unmatched_queries_and_top_k_bound_the_results() {
        assert!(index().search("zzzz qqqq", 5).is_empty());
        assert!(!Index::has_terms("  ! ? "));
        assert_eq!(index().search("mcp", 2).len(), 2);
        assert!(index().search("mcp", 100).len() <= index().document_count());
    }
}
