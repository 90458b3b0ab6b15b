//! The contract's TypeScript (feature `ts`, build time only): each message's fields and answer
//! as TypeScript, and the declaration of every named type they use, from the Rust types
//! themselves (ts-rs reads their serde attributes). `cargo xtask codegen` writes them into
//! `extension/contract.js` as JSDoc typedefs.

use std::any::TypeId;
use std::collections::HashSet;

use ts_rs::{Config, TypeVisitor, TS};

/// One message's TypeScript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageTs {
    /// The wire name (`type`).
    pub name: &'static str,
    /// Its fields, without `type`, as an inline object type.
    pub request: String,
    /// Its answer's type (by name where it has one).
    pub answer: String,
}

/// A named type's TypeScript declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The type's name.
    pub name: String,
    /// Its doc comment, as ts-rs gives it (a `/** ... */` block), if any.
    pub docs: Option<String>,
    /// Its type, the right-hand side of `type Name = ...;`.
    pub body: String,
}

/// The named types met so far, each declared once, in the order they were met.
pub struct Shapes {
    cfg: Config,
    seen: HashSet<TypeId>,
    /// The declarations.
    pub declarations: Vec<Declaration>,
}

impl Default for Shapes {
    fn default() -> Self {
        Shapes {
            // Our integers are JSON numbers.
            cfg: Config::new().with_large_int("number"),
            seen: HashSet::new(),
            declarations: Vec::new(),
        }
    }
}

impl Shapes {
    /// A message with fields `F` and answer `A`.
    pub fn message<F: TS + 'static, A: TS + 'static>(&mut self, name: &'static str) -> MessageTs {
        F::visit_dependencies(self);
        self.visit::<A>();
        MessageTs {
            name,
            request: F::inline(&self.cfg),
            answer: A::name(&self.cfg),
        }
    }

    /// Declares `T` (and what it uses) even when no message names it.
    pub fn declare<T: TS + 'static>(&mut self) -> String {
        self.visit::<T>();
        T::name(&self.cfg)
    }
}

impl TypeVisitor for Shapes {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        // Only named types are declared; two Rust types may stand for one TypeScript type
        // (`serde_json::Value` and ts-rs's `JsonValue`): declared once.
        let name = T::output_path().map(|_| T::ident(&self.cfg));
        if let Some(name) = name.filter(|n| self.declarations.iter().all(|d| &d.name != n)) {
            let body = if name == "JsonValue" {
                // Free-form JSON the core passes on (MCP results, schemas, arguments): its
                // readers check what they use.
                "any".to_owned()
            } else {
                let decl = T::decl(&self.cfg);
                let body = decl.split_once(" = ").map_or(decl.as_str(), |(_, b)| b);
                body.trim_end().trim_end_matches(';').to_owned()
            };
            self.declarations.push(Declaration {
                name,
                docs: T::docs(),
                body,
            });
        }
        T::visit_dependencies(self);
        T::visit_generics(self);
    }
}
