//! (module under construction; see lib.rs code map)
