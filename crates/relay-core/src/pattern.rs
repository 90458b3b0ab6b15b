//! A string's `pattern` (JSON Schema: an ECMA-262 regular expression, unanchored) checked in
//! the core, for the answers to servers' questions (`crate::elicitation`). The common subset
//! is read: literals and escapes, `.`, classes (`[a-z]`, `[^…]`, `\d \w \s` and their negations),
//! groups (`(…)`, `(?:…)`), alternation, `^ $`, and the quantifiers `* + ? {n} {n,} {n,m}`
//! (greedy or lazy). Anything else (lookaround, backreferences, named groups, `\b`, property
//! escapes, flags) is not read: [`matches`] says `None` and the server stays the judge, as it
//! does when a match takes more than [`MAX_STEPS`] steps or the text is longer than
//! [`MAX_TEXT`]. The side panel checks the same
//! pattern with the browser's own engine.

use std::cell::Cell;

/// Most steps one match may take (backtracking is exponential on hostile patterns).
pub const MAX_STEPS: u32 = 100_000;

/// Longest pattern read.
const MAX_PATTERN: usize = 1_000;

/// Longest text checked: the matcher recurses once per character, and the worker's stack is
/// small.
pub const MAX_TEXT: usize = 1_000;

#[derive(Debug, Clone, PartialEq)]
enum Item {
    Range(char, char),
    Digit(bool),
    Word(bool),
    Space(bool),
}

impl Item {
    fn has(&self, c: char) -> bool {
        match *self {
            Item::Range(a, b) => (a..=b).contains(&c),
            Item::Digit(negated) => c.is_ascii_digit() != negated,
            Item::Word(negated) => (c.is_ascii_alphanumeric() || c == '_') != negated,
            Item::Space(negated) => c.is_whitespace() != negated,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Class { items: Vec<Item>, negated: bool },
    Any,
    Start,
    End,
    Group(Vec<Vec<Node>>),
    Repeat(Box<Repeat>),
}

#[derive(Debug, Clone, PartialEq)]
struct Repeat {
    node: Node,
    min: u32,
    max: Option<u32>,
    greedy: bool,
}

/// What the reader does not take.
struct Unsupported;

struct Reader<'a> {
    chars: &'a [char],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn alternatives(&mut self, depth: u32) -> Result<Vec<Vec<Node>>, Unsupported> {
        if depth > 32 {
            return Err(Unsupported);
        }
        let mut alts = vec![self.sequence(depth)?];
        while self.peek() == Some('|') {
            self.at += 1;
            alts.push(self.sequence(depth)?);
        }
        Ok(alts)
    }

    fn sequence(&mut self, depth: u32) -> Result<Vec<Node>, Unsupported> {
        let mut nodes = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom(depth)?;
            nodes.push(self.quantified(atom)?);
        }
        Ok(nodes)
    }

    fn atom(&mut self, depth: u32) -> Result<Node, Unsupported> {
        let literal = |c: char| Node::Class {
            items: vec![Item::Range(c, c)],
            negated: false,
        };
        Ok(match self.next().ok_or(Unsupported)? {
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '[' => self.class()?,
            '(' => {
                if self.peek() == Some('?') {
                    self.at += 1;
                    if self.next() != Some(':') {
                        return Err(Unsupported);
                    }
                }
                let alts = self.alternatives(depth + 1)?;
                if self.next() != Some(')') {
                    return Err(Unsupported);
                }
                Node::Group(alts)
            }
            '\\' => match self.escape()? {
                Item::Range(a, _) => literal(a),
                item => Node::Class {
                    items: vec![item],
                    negated: false,
                },
            },
            '*' | '+' | '?' | '{' | '}' | ']' | ')' => return Err(Unsupported),
            c => literal(c),
        })
    }

    /// After a `\`: a class escape, or the character it stands for.
    fn escape(&mut self) -> Result<Item, Unsupported> {
        let c = self.next().ok_or(Unsupported)?;
        let single = |c| Ok(Item::Range(c, c));
        match c {
            'd' | 'D' => Ok(Item::Digit(c == 'D')),
            'w' | 'W' => Ok(Item::Word(c == 'W')),
            's' | 'S' => Ok(Item::Space(c == 'S')),
            'n' => single('\n'),
            't' => single('\t'),
            'r' => single('\r'),
            'f' => single('\u{c}'),
            'v' => single('\u{b}'),
            c if c.is_ascii_punctuation() => single(c),
            // \b, \B, backreferences, \u, \x, \p, \c, \0, \k and the like.
            _ => Err(Unsupported),
        }
    }

    fn class(&mut self) -> Result<Node, Unsupported> {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut items = Vec::new();
        loop {
            let c = self.next().ok_or(Unsupported)?;
            let item = match c {
                ']' if !items.is_empty() => break,
                ']' | '[' => return Err(Unsupported),
                '\\' => self.escape()?,
                c => Item::Range(c, c),
            };
            // A range `a-z` (a `-` first, last or next to a class escape is itself).
            let dash = self.peek() == Some('-') && self.chars.get(self.at + 1) != Some(&']');
            match item {
                Item::Range(from, _) if dash => {
                    self.at += 1;
                    let to = match self.next().ok_or(Unsupported)? {
                        '\\' => match self.escape()? {
                            Item::Range(t, _) => t,
                            _ => return Err(Unsupported),
                        },
                        t => t,
                    };
                    if to < from {
                        return Err(Unsupported);
                    }
                    items.push(Item::Range(from, to));
                }
                item => items.push(item),
            }
        }
        Ok(Node::Class { items, negated })
    }

    fn quantified(&mut self, node: Node) -> Result<Node, Unsupported> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => return self.braces(node),
            _ => return Ok(node),
        };
        self.at += 1;
        self.repeat(node, min, max)
    }

    fn braces(&mut self, node: Node) -> Result<Node, Unsupported> {
        self.at += 1;
        let number = |r: &mut Self| -> Option<u32> {
            let start = r.at;
            while r.peek().is_some_and(|c| c.is_ascii_digit()) {
                r.at += 1;
            }
            let digits: String = r.chars[start..r.at].iter().collect();
            digits.parse().ok().filter(|n| *n <= 1_000)
        };
        let min = number(self).ok_or(Unsupported)?;
        let max = match self.next() {
            Some('}') => Some(min),
            Some(',') if self.peek() == Some('}') => {
                self.at += 1;
                None
            }
            Some(',') => {
                let max = number(self).ok_or(Unsupported)?;
                if self.next() != Some('}') || max < min {
                    return Err(Unsupported);
                }
                Some(max)
            }
            _ => return Err(Unsupported),
        };
        self.repeat(node, min, max)
    }

    fn repeat(&mut self, node: Node, min: u32, max: Option<u32>) -> Result<Node, Unsupported> {
        if matches!(node, Node::Start | Node::End | Node::Repeat(_)) {
            return Err(Unsupported);
        }
        let greedy = self.peek() != Some('?');
        if !greedy {
            self.at += 1;
        }
        Ok(Node::Repeat(Box::new(Repeat {
            node,
            min,
            max,
            greedy,
        })))
    }
}

struct Matcher<'a> {
    text: &'a [char],
    steps: Cell<u32>,
}

type Next<'k> = &'k mut dyn FnMut(usize) -> bool;

impl Matcher<'_> {
    fn step(&self) -> bool {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        n <= MAX_STEPS
    }

    fn sequence(&self, nodes: &[Node], pos: usize, k: Next<'_>) -> bool {
        if !self.step() {
            return false;
        }
        match nodes.split_first() {
            None => k(pos),
            Some((first, rest)) => self.node(first, pos, &mut |p| self.sequence(rest, p, k)),
        }
    }

    fn node(&self, node: &Node, pos: usize, k: Next<'_>) -> bool {
        let here = self.text.get(pos).copied();
        match node {
            Node::Class { items, negated } => {
                here.is_some_and(|c| items.iter().any(|i| i.has(c)) != *negated) && k(pos + 1)
            }
            Node::Any => {
                here.is_some_and(|c| !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'))
                    && k(pos + 1)
            }
            Node::Start => pos == 0 && k(pos),
            Node::End => pos == self.text.len() && k(pos),
            Node::Group(alts) => alts.iter().any(|seq| self.sequence(seq, pos, &mut *k)),
            Node::Repeat(r) => self.repeat(r, pos, 0, k),
        }
    }

    fn repeat(&self, r: &Repeat, pos: usize, count: u32, k: Next<'_>) -> bool {
        if !self.step() {
            return false;
        }
        let more = |k: Next<'_>| {
            r.max.is_none_or(|m| count < m)
                && self.node(&r.node, pos, &mut |p| {
                    // An iteration that matched nothing ends the loop (as ECMA-262 does).
                    (p != pos || count < r.min) && self.repeat(r, p, count + 1, &mut *k)
                })
        };
        if count < r.min {
            return more(k);
        }
        match r.greedy {
            true => more(&mut *k) || k(pos),
            false => k(pos) || more(k),
        }
    }
}

/// Whether `text` matches `pattern` somewhere (JSON Schema's unanchored `pattern`): `None` when
/// the pattern uses what is not read here, or the match takes too long.
pub fn matches(pattern: &str, text: &str) -> Option<bool> {
    let chars: Vec<char> = pattern.chars().collect();
    if chars.len() > MAX_PATTERN || text.chars().count() > MAX_TEXT {
        return None;
    }
    let mut reader = Reader {
        chars: &chars,
        at: 0,
    };
    let alts = reader.alternatives(0).ok()?;
    if reader.at != chars.len() {
        return None;
    }
    let root = [Node::Group(alts)];
    let text: Vec<char> = text.chars().collect();
    let matcher = Matcher {
        text: &text,
        steps: Cell::new(0),
    };
    for start in 0..=text.len() {
        if matcher.sequence(&root, start, &mut |_| true) {
            return Some(true);
        }
        if matcher.steps.get() > MAX_STEPS {
            return None;
        }
    }
    Some(false)
}
