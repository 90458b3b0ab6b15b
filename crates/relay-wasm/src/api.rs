//! Pure functions of the core exported to JavaScript (service worker, Node build, tests).
