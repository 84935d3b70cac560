//! `kvlab-sql`: the SQL side of walkthroughs, a web worker (placeholder).

fn main() {}
