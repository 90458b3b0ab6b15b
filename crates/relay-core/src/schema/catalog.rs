//! Renders many tools at once, saying repeated things once.
//!
//! Real tool sets repeat themselves: the same `options` object in eighteen tools, the same
//! "Maximum number of results to return" thirty times. A prompt that repeats them pays for
//! every copy; the anchors paid by dropping enums and shapes instead. Here an object shape seen
//! in several places becomes a named type (`Options = {...}`; so do long lists of allowed values,
//! `Format = "json"|"csv"`, and formatted strings, `DateTime = string<date-time>`, when the
//! copies cost more than the definition) and a parameter description seen
//! in several places is written once under its name. Nothing is dropped: every type, bound,
//! enum value, default and description is still in the text, exactly once.

use std::ops::Range;

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

use super::ir::{Additional, Def, Lowerer, Node, Ty};
use super::render::{self, collect_docs, DocLine, Docs};
use crate::model::Tool;

/// Indent of the lines under a signature or a type (description, then parameter docs). One
/// space: o200k reads `\n` + ` name` as two tokens, and a second space costs a third.
const DOC_INDENT: &str = " ";
/// Between a signature (or a type) and its description: a line break and [`DOC_INDENT`]. On
/// the same line, ` — ` cost a token more per tool (`)` and ` —` do not merge); measured on
/// `tools100.json` with o200k, 100 tokens of 6,102.
const DESCRIPTION_BREAK: &str = "\n ";
/// Shapes shorter than this stay inline: a name would save nothing.
const MIN_SHARED_SHAPE_CHARS: usize = 24;
/// Lists of allowed values and formatted scalars shorter than this stay inline (`"a"|"b"`).
const MIN_SHARED_VALUES_CHARS: usize = 12;

/// What [`render_catalog`] may share between tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatalogOptions {
    /// Name object shapes that occur more than once and refer to them by name.
    pub share_types: bool,
    /// Write parameter descriptions that occur more than once in a shared list.
    pub share_docs: bool,
}

impl Default for CatalogOptions {
    fn default() -> Self {
        CatalogOptions {
            share_types: true,
            share_docs: true,
        }
    }
}

impl CatalogOptions {
    /// No sharing: every tool's text stands alone (named types only for recursive schemas).
    pub fn standalone() -> Self {
        CatalogOptions {
            share_types: false,
            share_docs: false,
        }
    }
}

/// A problem found while rendering a tool's schema (an unresolvable `$ref`, a depth cut).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SchemaProblem {
    /// Index of the tool in the input slice.
    pub tool: usize,
    pub message: String,
}

/// The rendering of a set of tools.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderedCatalog {
    /// `Name = type` lines for the named types the tools use, each followed by its field docs.
    pub types: String,
    /// `name: description` lines for parameter descriptions several tools share.
    pub shared_docs: String,
    /// One text per input tool, in input order: `name(params)`, then its description and one
    /// `path: description` line per documented parameter, each indented by one space. Ends
    /// with a newline.
    pub tools: Vec<String>,
    pub problems: Vec<SchemaProblem>,
    /// Indices of the tools whose parameter texts were cut (`prompt::MAX_SCHEMA_TEXT`).
    pub cut: Vec<usize>,
}

/// Renders `tools` for a prompt. See the module docs for what is shared.
pub fn render_catalog(tools: &[&Tool], options: &CatalogOptions) -> RenderedCatalog {
    let joined = render_joined(tools, options);
    let mut start = 0;
    let texts = joined
        .tool_ends
        .iter()
        .map(|&end| {
            let text = joined.tools[start..end].to_owned();
            start = end;
            text
        })
        .collect();
    RenderedCatalog {
        types: joined.types,
        shared_docs: joined.shared_docs,
        tools: texts,
        problems: joined.problems,
        cut: joined.cut,
    }
}

/// A [`RenderedCatalog`] whose tool texts are written one after the other into one string
/// (a prompt copies them out in runs, one per server, not one string per tool).
#[derive(Debug, Default)]
pub(crate) struct JoinedCatalog {
    pub types: String,
    pub shared_docs: String,
    /// The tools' texts, in input order.
    pub tools: String,
    /// Where each tool's text ends in `tools`.
    pub tool_ends: Vec<usize>,
    pub problems: Vec<SchemaProblem>,
    pub cut: Vec<usize>,
}

/// [`render_catalog`] into one string for the tools' texts.
pub(crate) fn render_joined(tools: &[&Tool], options: &CatalogOptions) -> JoinedCatalog {
    let mut lowerer = Lowerer::default();
    let mut problems = Vec::new();
    let mut cut = Vec::new();
    let mut roots = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        roots.push(lowerer.lower_root(&tool.input_schema));
        if std::mem::take(&mut lowerer.cut) {
            cut.push(index);
        }
        problems.extend(lowerer.problems.drain(..).map(|message| SchemaProblem {
            tool: index,
            message,
        }));
    }
    let mut defs: Vec<Def<'_>> = std::mem::take(&mut lowerer.defs);
    if options.share_types {
        // Objects first, then scalars: a scalar repeated only inside a shared object is then
        // counted once there, and stays inline when that is all.
        share_shapes(&mut roots, &mut defs, Shape::Object);
        share_shapes(&mut roots, &mut defs, Shape::Scalar);
    }
    let names = def_names(&defs);

    // Every documentation line, tools first, then definitions.
    let mut docs = Docs::default();
    let mut path = String::new();
    let tool_spans: Vec<Range<usize>> = roots
        .iter()
        .map(|root| {
            let first = docs.lines.len();
            collect_docs(root, &mut path, true, &mut docs);
            first..docs.lines.len()
        })
        .collect();
    let def_spans: Vec<Range<usize>> = defs
        .iter()
        .map(|def| {
            let first = docs.lines.len();
            render::collect_children(&def.node.ty, &mut path, &mut docs);
            first..docs.lines.len()
        })
        .collect();
    let Docs { arena, lines } = docs;
    let arena = arena.as_str();
    let shared = if options.share_docs {
        shared_descriptions(&lines, arena)
    } else {
        HashMap::default()
    };

    let mut catalog = JoinedCatalog {
        problems,
        cut,
        tools: String::with_capacity(tools.len() * 256),
        tool_ends: Vec::with_capacity(tools.len()),
        ..JoinedCatalog::default()
    };
    write_shared_docs(&mut catalog.shared_docs, &lines, arena, &shared);
    for ((def, span), name) in defs.iter().zip(def_spans).zip(&names) {
        let out = &mut catalog.types;
        out.push_str(name);
        out.push_str(" = ");
        render::write_ty(out, &def.node.ty, &names);
        if let Some(doc) = &def.node.doc {
            out.push_str(DESCRIPTION_BREAK);
            out.push_str(doc);
        }
        out.push('\n');
        write_docs(out, &lines[span], arena, &shared);
    }
    for ((tool, root), span) in tools.iter().zip(&roots).zip(tool_spans) {
        let out = &mut catalog.tools;
        write_signature(out, tool, root, &names);
        write_docs(out, &lines[span], arena, &shared);
        catalog.tool_ends.push(out.len());
    }
    catalog
}

/// `name(params)`, then the description on its own indented line.
fn write_signature(out: &mut String, tool: &Tool, root: &Node<'_>, names: &[String]) {
    out.push_str(&tool.name);
    out.push('(');
    match &root.ty {
        Ty::Object(obj) => render::write_fields(out, obj, names),
        Ty::Any => out.push_str("..."),
        ty => render::write_ty(out, ty, names),
    }
    out.push(')');
    let description = tool
        .description
        .as_deref()
        .or(tool.title.as_deref())
        .map(super::text::normalize_ws);
    if let Some(description) = description.filter(|d| !d.is_empty()) {
        out.push_str(DESCRIPTION_BREAK);
        out.push_str(&description);
    }
    out.push('\n');
}

/// The shared descriptions, in the order their names first appear.
fn write_shared_docs(
    out: &mut String,
    lines: &[DocLine<'_>],
    arena: &str,
    shared: &HashMap<&str, &str>,
) {
    let mut seen: Vec<&str> = Vec::with_capacity(shared.len());
    for line in lines {
        let leaf = line.leaf(arena);
        if line.doc.is_some() && shared.get(leaf).copied() == line.doc && !seen.contains(&leaf) {
            seen.push(leaf);
            out.push_str(leaf);
            out.push_str(": ");
            out.push_str(shared[leaf]);
            out.push('\n');
        }
    }
}

/// Renders one tool on its own: its named types (if any), signature, description and docs.
pub fn render(tool: &Tool) -> String {
    let catalog = render_catalog(&[tool], &CatalogOptions::standalone());
    let mut out = catalog.types;
    out.extend(catalog.tools);
    out
}

fn write_docs(out: &mut String, docs: &[DocLine<'_>], arena: &str, shared: &HashMap<&str, &str>) {
    for line in docs {
        let is_shared = line.doc.is_some() && shared.get(line.leaf(arena)).copied() == line.doc;
        if is_shared && !line.has_extras() {
            continue;
        }
        render::write_doc_line(out, DOC_INDENT, line, arena, !is_shared);
    }
}

/// For each parameter name, the description it has in at least two places (the most common
/// one when it has several).
fn shared_descriptions<'a>(lines: &[DocLine<'a>], arena: &'a str) -> HashMap<&'a str, &'a str> {
    // (leaf, doc) -> (count, first seen)
    let mut counts: HashMap<(&str, &str), (usize, usize)> = HashMap::default();
    let mut order = 0;
    for line in lines {
        if let Some(doc) = line.doc {
            let entry = counts.entry((line.leaf(arena), doc)).or_insert((0, order));
            entry.0 += 1;
            order += 1;
        }
    }
    let mut best: HashMap<&str, (&str, usize, usize)> = HashMap::default();
    for ((leaf, doc), (count, first)) in counts {
        if count < 2 {
            continue;
        }
        let better = match best.get(leaf) {
            None => true,
            Some(&(_, c, f)) => count > c || (count == c && first < f),
        };
        if better {
            best.insert(leaf, (doc, count, first));
        }
    }
    best.into_iter()
        .map(|(leaf, (doc, _, _))| (leaf, doc))
        .collect()
}

/// Replaces shapes of `kind` that occur at least twice by named definitions.
///
/// One walk hashes every type once, bottom-up (a parent's hash is made of its children's),
/// and notes each position of a shape in the order met; the replacing walk then goes through
/// the same positions in the same order, so no type is hashed or compared twice.
fn share_shapes<'a>(roots: &mut [Node<'a>], defs: &mut Vec<Def<'a>>, kind: Shape) {
    let provisional = def_names(defs);
    let mut shapes = Shapes::new(kind);
    for root in roots.iter() {
        shapes.walk(&root.ty, &Hint::Name(""), false);
    }
    for def in defs.iter() {
        shapes.walk(&def.node.ty, &Hint::Name(&def.name_hint), false);
    }
    let Shapes {
        mut groups, seen, ..
    } = shapes;
    let mut chosen: Vec<usize> = (0..groups.len())
        .filter(|&g| {
            let group = &groups[g];
            group.count >= 2 && {
                let mut text = String::new();
                render::write_ty(&mut text, group.ty, &provisional);
                worth_a_name(group.ty, text.len(), group.count)
            }
        })
        .collect();
    if chosen.is_empty() {
        return;
    }
    // In the order their first copies were met (a group is made once the walk has left its
    // first copy: after the shapes inside it).
    crate::sorted_map::sort_by(&mut chosen, |&a, &b| groups[a].first.cmp(&groups[b].first));
    let base = defs.len();
    let mut def_of: Vec<Option<usize>> = vec![None; groups.len()];
    for (i, &g) in chosen.iter().enumerate() {
        def_of[g] = Some(base + i);
    }
    let chosen: Vec<(usize, Ty<'a>, String)> = chosen
        .into_iter()
        .map(|g| {
            let group = &mut groups[g];
            (
                group.first,
                group.ty.clone(),
                std::mem::take(&mut group.hint),
            )
        })
        .collect();
    drop(groups);
    let mut replace = Replace {
        kind,
        seen: &seen,
        def_of: &def_of,
        base,
        uses: vec![0; chosen.len()],
    };
    let mut cursor = 0;
    for root in roots.iter_mut() {
        replace.children(&mut root.ty, &mut cursor);
    }
    for def in defs.iter_mut() {
        replace.children(&mut def.node.ty, &mut cursor);
    }
    for (first, ty, hint) in chosen {
        // The body is its first copy as it was met: the positions under it follow its own.
        let mut node = Node {
            ty,
            ..Node::default()
        };
        let mut cursor = first + 1;
        replace.children(&mut node.ty, &mut cursor);
        defs.push(Def {
            name_hint: hint,
            node,
        });
    }
    inline_single_use(roots, defs, base, &replace.uses);
}

/// The shapes of one kind found in a catalog's trees (see [`share_shapes`]).
struct Shapes<'t, 'a> {
    kind: Shape,
    /// Equal shapes, in the order their first copies were met.
    groups: Vec<Group<'t, 'a>>,
    index: HashMap<Hashed<'t, 'a>, usize>,
    /// Every position holding a shape of `kind`, in walk order.
    seen: Vec<Seen>,
}

struct Group<'t, 'a> {
    ty: &'t Ty<'a>,
    count: usize,
    /// Index in `seen` of the first copy.
    first: usize,
    hint: String,
}

/// A shape position: its group, and the index in `seen` after the positions under it.
#[derive(Clone, Copy)]
struct Seen {
    group: usize,
    end: usize,
}

/// A type with its hash computed once; equal only when the types are.
struct Hashed<'t, 'a>(u64, &'t Ty<'a>);

impl std::hash::Hash for Hashed<'_, '_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0);
    }
}

impl PartialEq for Hashed<'_, '_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 && self.1 == other.1
    }
}

impl Eq for Hashed<'_, '_> {}

impl<'t, 'a> Shapes<'t, 'a> {
    fn new(kind: Shape) -> Self {
        Shapes {
            kind,
            groups: Vec::new(),
            index: HashMap::default(),
            seen: Vec::new(),
        }
    }

    /// Notes the shapes under `ty` and returns its hash (equal types, equal hashes) when
    /// `hashed` (a shape's or a shape's part's: the hash of a tool's parameter list, or of a
    /// list of allowed values' parent, is never looked at).
    fn walk(&mut self, ty: &'t Ty<'a>, hint: &Hint<'_>, hashed: bool) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut state = rustc_hash::FxHasher::default();
        if hashed {
            hash_own(ty, &mut state);
        }
        for_each_child(ty, hint, &mut |node, child_hint| {
            let is_shape = shape_of(&node.ty) == Some(self.kind);
            let at = is_shape.then(|| {
                self.seen.push(Seen { group: 0, end: 0 });
                self.seen.len() - 1
            });
            let hash = self.walk(&node.ty, child_hint, hashed || is_shape);
            if let Some(at) = at {
                let group = match self.index.entry(Hashed(hash, &node.ty)) {
                    std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        // A formatted string is named after its format (`DateTime`), not its
                        // first use.
                        let hint = match &node.ty {
                            Ty::Prim {
                                format: Some(format),
                                ..
                            } => (*format).to_owned(),
                            _ => child_hint.render(),
                        };
                        self.groups.push(Group {
                            ty: &node.ty,
                            count: 0,
                            first: at,
                            hint,
                        });
                        *e.insert(self.groups.len() - 1)
                    }
                };
                self.groups[group].count += 1;
                self.seen[at] = Seen {
                    group,
                    end: self.seen.len(),
                };
            }
            if hashed {
                state.write_u64(hash);
                node.doc.hash(&mut state);
                node.default.hash(&mut state);
                node.extras.hash(&mut state);
            }
        });
        state.finish()
    }
}

/// Hashes what `ty` holds besides its child nodes (their hashes follow, from the walk).
fn hash_own<H: std::hash::Hasher>(ty: &Ty<'_>, state: &mut H) {
    use std::hash::Hash;
    std::mem::discriminant(ty).hash(state);
    match ty {
        Ty::Array { notes, .. } => notes.hash(state),
        Ty::Tuple { items, rest, notes } => {
            items.len().hash(state);
            rest.is_some().hash(state);
            notes.hash(state);
        }
        Ty::Object(obj) => {
            state.write_usize(obj.props.len());
            for prop in &obj.props {
                prop.name.hash(state);
                prop.required.hash(state);
            }
            state.write_usize(obj.patterns.len());
            for (pattern, _) in &obj.patterns {
                pattern.hash(state);
            }
            std::mem::discriminant(&obj.additional).hash(state);
            obj.key.is_some().hash(state);
            obj.notes.hash(state);
        }
        Ty::Union(nodes) | Ty::All(nodes) => nodes.len().hash(state),
        Ty::Not(_) => {}
        Ty::Cond {
            then, otherwise, ..
        } => {
            then.is_some().hash(state);
            otherwise.is_some().hash(state);
        }
        // No child nodes: the whole type.
        Ty::Any | Ty::Never | Ty::Prim { .. } | Ty::Opaque(_) | Ty::Lit(_) | Ty::Def(_) => {
            ty.hash(state)
        }
    }
}

/// The replacing walk of [`share_shapes`].
struct Replace<'s> {
    kind: Shape,
    /// The positions [`Shapes::walk`] noted.
    seen: &'s [Seen],
    /// Each group's definition, if it got one.
    def_of: &'s [Option<usize>],
    /// The first new definition's id.
    base: usize,
    /// How many positions now refer to each new definition.
    uses: Vec<usize>,
}

impl Replace<'_> {
    /// Replaces the shapes under `ty` whose group got a definition, reading the noted
    /// positions from `cursor` on (the same positions, in the same order).
    fn children(&mut self, ty: &mut Ty<'_>, cursor: &mut usize) {
        for_each_child_mut(ty, &mut |node| {
            if shape_of(&node.ty) == Some(self.kind) {
                let Some(&Seen { group, end }) = self.seen.get(*cursor) else {
                    return;
                };
                if let Some(id) = self.def_of[group] {
                    node.ty = Ty::Def(id);
                    self.uses[id - self.base] += 1;
                    *cursor = end;
                    return;
                }
                *cursor += 1;
            }
            self.children(&mut node.ty, cursor);
        });
    }
}

/// A shape that repeats only inside another shared shape ends up referenced once: a name for
/// it would cost a line and save nothing, so it goes back inline. `uses`: how many positions
/// refer to each definition from `first_shape` on (the replacing walk counted them).
fn inline_single_use<'a>(
    roots: &mut [Node<'a>],
    defs: &mut Vec<Def<'a>>,
    first_shape: usize,
    uses: &[usize],
) {
    if !uses.contains(&1) {
        return;
    }
    let single: Vec<bool> = (0..defs.len())
        .map(|id| id >= first_shape && uses.get(id - first_shape) == Some(&1))
        .collect();
    // Inline (bodies may refer to other single-use shapes: substitute until none is left),
    // then renumber the definitions that stay.
    let bodies: Vec<Ty<'a>> = defs.iter().map(|d| d.node.ty.clone()).collect();
    let substitute = |ty: &mut Ty<'a>| {
        while substitute_defs(ty, &single, &bodies) {}
    };
    roots.iter_mut().for_each(|root| substitute(&mut root.ty));
    defs.iter_mut().for_each(|def| substitute(&mut def.node.ty));
    let mut new_ids = Vec::with_capacity(defs.len());
    let mut next = 0;
    for &inlined in &single {
        new_ids.push(next);
        next += usize::from(!inlined);
    }
    let mut kept = Vec::with_capacity(next);
    for (def, inlined) in defs.drain(..).zip(&single) {
        if !inlined {
            kept.push(def);
        }
    }
    *defs = kept;
    let renumber = |ty: &mut Ty<'a>| visit_defs_mut(ty, &mut |id| *id = new_ids[*id]);
    roots.iter_mut().for_each(|root| renumber(&mut root.ty));
    defs.iter_mut().for_each(|def| renumber(&mut def.node.ty));
}

fn visit_defs_mut(ty: &mut Ty<'_>, f: &mut dyn FnMut(&mut usize)) {
    for_each_child_mut(ty, &mut |node| match &mut node.ty {
        Ty::Def(id) => f(id),
        ty => visit_defs_mut(ty, f),
    });
}

/// Replaces references to single-use definitions by their bodies; true if any was replaced.
fn substitute_defs<'a>(ty: &mut Ty<'a>, single: &[bool], bodies: &[Ty<'a>]) -> bool {
    let mut changed = false;
    for_each_child_mut(ty, &mut |node| match node.ty {
        Ty::Def(id) if single.get(id).copied().unwrap_or(false) => {
            node.ty = bodies[id].clone();
            changed = true;
        }
        ref mut ty => changed |= substitute_defs(ty, single, bodies),
    });
    changed
}

/// The kinds of shapes that may get a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Objects with fields.
    Object,
    /// Lists of allowed values, formatted strings.
    Scalar,
}

fn shape_of(ty: &Ty<'_>) -> Option<Shape> {
    match ty {
        Ty::Object(obj) if !obj.props.is_empty() || !obj.patterns.is_empty() => Some(Shape::Object),
        Ty::Lit(values) if values.len() >= 2 => Some(Shape::Scalar),
        // Without notes only: a bound belongs on the parameter's own line.
        Ty::Prim { format, notes, .. } if format.is_some() && notes.is_empty() => {
            Some(Shape::Scalar)
        }
        _ => None,
    }
}

/// Whether naming a shape of `chars` characters used `count` times saves text: an object from
/// [`MIN_SHARED_SHAPE_CHARS`] on; a list of allowed values when its copies outweigh the line
/// that defines it (measured in o200k tokens on the reference sets: `"asc"|"desc"` twice costs
/// about what `SortOrder = "asc"|"desc"` does, four times it saves).
fn worth_a_name(ty: &Ty<'_>, chars: usize, count: usize) -> bool {
    match ty {
        Ty::Lit(_) | Ty::Prim { .. } => {
            chars >= MIN_SHARED_VALUES_CHARS && (count - 1) * chars >= 3 * MIN_SHARED_VALUES_CHARS
        }
        _ => chars >= MIN_SHARED_SHAPE_CHARS,
    }
}

/// The name a shape found at a position would get: made into text only for the shapes that
/// get a name (most positions never need it, and building it for each was a string
/// allocation per child visited).
#[derive(Clone, Copy)]
enum Hint<'h> {
    Name(&'h str),
    /// `{parent}Value`, `{parent}Key`, `{parent}Item`.
    Suffix(&'h Hint<'h>, &'static str),
    /// The parent's name made singular (`tags` → `tag`).
    Singular(&'h Hint<'h>),
}

impl Hint<'_> {
    fn render(&self) -> String {
        match self {
            Hint::Name(name) => (*name).to_owned(),
            Hint::Suffix(parent, suffix) => {
                let mut name = parent.render();
                name.push_str(suffix);
                name
            }
            Hint::Singular(parent) => singular(&parent.render()),
        }
    }
}

/// Calls `f` on every direct child position of `ty`, with a name hint for a type found there.
fn for_each_child<'t, 'a>(
    ty: &'t Ty<'a>,
    hint: &Hint<'_>,
    f: &mut dyn FnMut(&'t Node<'a>, &Hint<'_>),
) {
    match ty {
        Ty::Object(obj) => {
            for prop in &obj.props {
                f(&prop.node, &Hint::Name(prop.name));
            }
            for (_, node) in &obj.patterns {
                f(node, &Hint::Suffix(hint, "Value"));
            }
            if let Additional::Schema(node) = &obj.additional {
                f(node, &Hint::Suffix(hint, "Value"));
            }
            if let Some(key) = &obj.key {
                f(key, &Hint::Suffix(hint, "Key"));
            }
        }
        Ty::Array { item, .. } => f(item, &Hint::Singular(hint)),
        Ty::Tuple { items, rest, .. } => {
            for item in items {
                f(item, &Hint::Suffix(hint, "Item"));
            }
            if let Some(rest) = rest {
                f(rest, &Hint::Singular(hint));
            }
        }
        Ty::Union(nodes) | Ty::All(nodes) => {
            for node in nodes {
                f(node, hint);
            }
        }
        Ty::Not(node) => f(node, hint),
        Ty::Cond {
            when,
            then,
            otherwise,
        } => {
            for node in [Some(when), then.as_ref(), otherwise.as_ref()]
                .into_iter()
                .flatten()
            {
                f(node, hint);
            }
        }
        _ => {}
    }
}

fn for_each_child_mut<'a>(ty: &mut Ty<'a>, f: &mut dyn FnMut(&mut Node<'a>)) {
    match ty {
        Ty::Object(obj) => {
            for prop in &mut obj.props {
                f(&mut prop.node);
            }
            for (_, node) in &mut obj.patterns {
                f(node);
            }
            if let Additional::Schema(node) = &mut obj.additional {
                f(node);
            }
            if let Some(key) = &mut obj.key {
                f(key);
            }
        }
        Ty::Array { item, .. } => f(item),
        Ty::Tuple { items, rest, .. } => {
            items.iter_mut().for_each(&mut *f);
            if let Some(rest) = rest {
                f(rest);
            }
        }
        Ty::Union(nodes) | Ty::All(nodes) => nodes.iter_mut().for_each(f),
        Ty::Not(node) => f(node),
        Ty::Cond {
            when,
            then,
            otherwise,
        } => {
            f(when);
            if let Some(then) = then {
                f(then);
            }
            if let Some(otherwise) = otherwise {
                f(otherwise);
            }
        }
        _ => {}
    }
}

/// Unique PascalCase display names for the definitions, in order.
fn def_names(defs: &[Def<'_>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(defs.len());
    for def in defs {
        let base = pascal_case(&def.name_hint);
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        names.push(name);
    }
    names
}

fn pascal_case(hint: &str) -> String {
    let mut out = String::with_capacity(hint.len());
    let mut upper = true;
    for c in hint.chars() {
        if c.is_alphanumeric() {
            if upper {
                // ASCII letters only: a type name's capital is a convention, and the upper-case
                // half of Unicode's case tables (~14 KB of wasm) is not worth it.
                out.push(c.to_ascii_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Type");
    }
    out
}

fn singular(hint: &str) -> String {
    if let Some(stem) = hint.strip_suffix("ies") {
        format!("{stem}y")
    } else if hint.ends_with("sses")
        || hint.ends_with("xes")
        || hint.ends_with("ches")
        || hint.ends_with("shes")
    {
        hint[..hint.len() - 2].to_owned()
    } else if hint.ends_with('s') && !hint.ends_with("ss") && hint.len() > 1 {
        hint[..hint.len() - 1].to_owned()
    } else {
        format!("{hint}Item")
    }
}
