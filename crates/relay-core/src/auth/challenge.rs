//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9110 §11.6.1): the
//! parameters MCP authorization reads from a 401 or 403 — `resource_metadata` (RFC 9728 §5.1),
//! `scope` and `error` (`invalid_token`, `insufficient_scope`). A resource that takes DPoP-bound
//! tokens (RFC 9449 §7.1) says the same with a `DPoP` challenge, read where there is no `Bearer`
//! one.

/// The parameters of the `Bearer` challenge, if the header has one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BearerChallenge {
    pub resource_metadata: Option<String>,
    /// Space-separated scopes the resource asks for.
    pub scope: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// Parses a `WWW-Authenticate` value, which may hold several challenges
    /// (`Basic realm="x", Bearer scope="a"`): its `Bearer` challenge, else its `DPoP` one;
    /// `None` when it has neither.
    pub fn parse(header: &str) -> Option<BearerChallenge> {
        Self::parse_scheme(header, "bearer").or_else(|| Self::parse_dpop(header))
    }

    /// The parameters of the `DPoP` challenge (RFC 9449 §7.1), if the header has one.
    pub fn parse_dpop(header: &str) -> Option<BearerChallenge> {
        Self::parse_scheme(header, "dpop")
    }

    fn parse_scheme(header: &str, scheme: &str) -> Option<BearerChallenge> {
        let mut tokens = Tokens {
            text: header.as_bytes(),
            at: 0,
        };
        let mut in_bearer = false;
        let mut found = None::<BearerChallenge>;
        loop {
            tokens.skip_separators();
            let Some(name) = tokens.token() else {
                // Stray characters: skip one and go on (the header is untrusted).
                if tokens.peek().is_none() {
                    break;
                }
                tokens.at += 1;
                continue;
            };
            tokens.skip_spaces();
            if tokens.peek() == Some(b'=') && tokens.equals_starts_value() {
                tokens.at += 1;
                tokens.skip_spaces();
                let value = if tokens.peek() == Some(b'"') {
                    tokens.quoted()
                } else {
                    tokens.token().unwrap_or_default()
                };
                if in_bearer {
                    if let Some(challenge) = found.as_mut() {
                        challenge.set(&name, value);
                    }
                }
            } else if tokens.peek() == Some(b'=') {
                // The end of a token68 (`Basic dXNlcg==`).
                tokens.skip_padding();
            } else {
                // A new scheme starts.
                in_bearer = name.eq_ignore_ascii_case(scheme) && found.is_none();
                if in_bearer {
                    found = Some(BearerChallenge::default());
                }
            }
        }
        found
    }

    fn set(&mut self, name: &str, value: String) {
        let slot = match name.to_ascii_lowercase().as_str() {
            "resource_metadata" => &mut self.resource_metadata,
            "scope" => &mut self.scope,
            "error" => &mut self.error,
            "error_description" => &mut self.error_description,
            _ => return,
        };
        // The first occurrence wins (RFC 9110 forbids repeats; never let a later one override).
        if slot.is_none() {
            *slot = Some(value);
        }
    }

    /// Whether the resource says the token lacks a scope (step-up authorization).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// The requested scopes, split; empty when none were given.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref().unwrap_or_default())
    }
}

/// Splits a space-separated scope string (RFC 6749 §3.3).
pub fn split_scopes(scope: &str) -> Vec<String> {
    scope.split_whitespace().map(str::to_owned).collect()
}

struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
}

impl Tokens<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.at += 1;
        }
    }

    /// An RFC 9110 token (plus token68's `/`); `=` is never part of it.
    fn token(&mut self) -> Option<String> {
        let start = self.at;
        while let Some(b) = self.peek() {
            let is_tchar = b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~/".contains(&b);
            if !is_tchar {
                break;
            }
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.text[start..self.at]).into_owned())
    }

    /// Whether the `=` at the cursor starts a parameter value rather than token68 padding
    /// (`dXNlcg==` is followed by more `=`, a comma or the end).
    fn equals_starts_value(&self) -> bool {
        let mut i = self.at + 1;
        while matches!(self.text.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        !matches!(self.text.get(i), None | Some(b'=' | b','))
    }

    /// Skips token68 padding at the cursor.
    fn skip_padding(&mut self) {
        while self.peek() == Some(b'=') {
            self.at += 1;
        }
    }

    fn quoted(&mut self) -> String {
        let mut out = Vec::new();
        self.at += 1; // opening quote
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    if let Some(escaped) = self.peek() {
                        out.push(escaped);
                        self.at += 1;
                    }
                }
                other => out.push(other),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}
