//! `kvlab-web`: the browser entry point that trunk builds.
fn main() {}
