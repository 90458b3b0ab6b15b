//! MCP authorization, sans IO: signing in to a remote MCP server with OAuth 2.1 as the MCP
//! authorization spec (2025-11-25, with the 2025-03-26 fallbacks) describes.
//!
//! [`Authorizer`] is the state machine of one server; its driver performs the requests it asks
//! for, sends the user's browser to the authorization page (`chrome.identity.launchWebAuthFlow`
//! in the extension, following the redirect in the Node conformance client), hands back what
//! came of it, persists [`AuthState`] and puts [`Authorizer::authorization`] on the session's
//! requests (`client::Session::set_authorization`).
//!
//! - [`flow`]: the state machine.
//! - [`input`]: the flow driven as data (one input type in, serialisable actions and events out).
//! - [`challenge`]: the `WWW-Authenticate` `Bearer` (or `DPoP`) challenge.
//! - [`dpop`]: DPoP proofs (RFC 9449) from the driver's public key, and servers' nonces.
//! - [`metadata`]: protected-resource and authorization-server metadata, where to find them.
//! - [`registration`]: client identity and token endpoint authentication.
//! - [`token`]: issued tokens.
//! - [`pkce`]: PKCE S256 and `state` from driver-supplied randomness.
//! - [`encode`]: form, query and base64 encodings.
//! - [`error`]: why a sign-in failed (never quoting a secret).
//!
//! **Invariant:** no token, client secret, code or code verifier appears in an error text or a
//! `Debug` output; no private key ever enters this module (the driver signs).

pub mod challenge;
pub mod dpop;
pub mod encode;
pub mod error;
pub mod flow;
pub mod input;
pub mod metadata;
pub mod pkce;
pub mod registration;
pub mod token;

pub use challenge::BearerChallenge;
pub use dpop::PublicJwk;
pub use error::AuthError;
pub use flow::{
    AuthAction, AuthConfig, AuthEvent, AuthRequest, AuthState, Authorizer, EnterpriseIdentity,
    SignKey,
};
pub use input::AuthInput;
pub use metadata::{ResourceMetadata, ServerMetadata};
pub use pkce::SEED_BYTES;
pub use registration::{ClientIdentity, TokenAuth};
pub use token::TokenSet;
