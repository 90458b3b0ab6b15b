//! The brace stack: the open `{` of prose that may be a call, each with the complete objects
//! nested directly in it (the fallback candidates when that brace never closes).

use std::rc::Rc;

use super::Span;

/// Complete objects remembered per open brace, for the fallback when that brace never closes.
const MAX_CHILDREN: usize = 1024;

/// The open braces, innermost on top, as a persistent stack: copying it for a checkpoint costs
/// the same whatever its depth, and a shared node is copied only when it changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Frames {
    pub(crate) top: Option<Rc<FrameNode>>,
    /// The last node popped when nothing else held it, reused by the next push: most braces
    /// close right after they open (every JSON line, every call object), and a node per brace
    /// cost an allocation and a free each.
    spare: Option<Rc<FrameNode>>,
}

#[derive(Debug, Clone)]
pub(crate) struct FrameNode {
    pub(crate) start: usize,
    pub(crate) depth: usize,
    /// The complete objects nested directly in this brace, for when it never closes.
    pub(crate) children: Vec<Span>,
    pub(crate) parent: Option<Rc<FrameNode>>,
}

impl Frames {
    pub(crate) fn len(&self) -> usize {
        self.top.as_ref().map_or(0, |n| n.depth)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.top.is_none()
    }

    pub(crate) fn push(&mut self, start: usize) {
        let parent = self.top.take();
        let depth = parent.as_ref().map_or(0, |p| p.depth) + 1;
        let mut spare = self.spare.take();
        if let Some(node) = spare.as_mut().and_then(Rc::get_mut) {
            node.start = start;
            node.depth = depth;
            node.children.clear();
            node.parent = parent;
            self.top = spare;
            return;
        }
        self.top = Some(Rc::new(FrameNode {
            start,
            depth,
            children: Vec::new(),
            parent,
        }));
    }

    /// Closes the innermost brace; returns where it opened.
    pub(crate) fn pop(&mut self) -> Option<usize> {
        let mut node = self.top.take()?;
        let start = node.start;
        match Rc::get_mut(&mut node) {
            Some(n) => {
                self.top = n.parent.take();
                self.spare = Some(node);
            }
            None => self.top = node.parent.clone(),
        }
        Some(start)
    }

    pub(crate) fn add_child(&mut self, span: Span) {
        if let Some(top) = self.top.as_mut() {
            if top.children.len() < MAX_CHILDREN {
                Rc::make_mut(top).children.push(span);
            }
        }
    }

    pub(crate) fn outermost(&self) -> Option<usize> {
        let mut node = self.top.as_ref()?;
        while let Some(parent) = node.parent.as_ref() {
            node = parent;
        }
        Some(node.start)
    }

    /// Removes all braces, dropping them one node at a time (a recursive drop of a deep stack
    /// would overflow), without collecting them as [`Self::take`] does.
    pub(crate) fn clear(&mut self) {
        let mut node = self.top.take();
        while let Some(mut n) = node {
            node = match Rc::get_mut(&mut n) {
                Some(m) => {
                    let parent = m.parent.take();
                    self.spare = Some(n);
                    parent
                }
                None => n.parent.clone(),
            };
        }
    }

    /// Removes all braces; returns them outermost first, with their children.
    pub(crate) fn take(&mut self) -> Vec<(usize, Vec<Span>)> {
        let mut out = Vec::with_capacity(self.len());
        let mut node = self.top.take();
        while let Some(n) = node {
            out.push((n.start, n.children.clone()));
            node = n.parent.clone();
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reusing a popped node never changes what a copy (a checkpoint) holds, nor the stack.
    #[test]
    fn reused_nodes_leave_copies_alone() {
        let mut f = Frames::default();
        f.push(1);
        f.push(5);
        f.add_child(Span::new(6, 7));
        let copy = f.clone();
        assert_eq!(f.pop(), Some(5));
        f.push(9);
        f.push(12);
        assert_eq!(f.pop(), Some(12));
        f.push(20);
        assert_eq!(f.len(), 3);
        assert_eq!(f.take(), vec![(1, vec![]), (9, vec![]), (20, vec![])]);
        f.push(30);
        f.push(31);
        f.clear();
        assert!(f.is_empty());
        f.push(40);
        assert_eq!(f.take(), vec![(40, vec![])]);
        let mut copy = copy;
        assert_eq!(copy.take(), vec![(1, vec![]), (5, vec![Span::new(6, 7)])]);
    }
}
