//! Walkthroughs in the app: the list (search, language, load from a file or a URL) and the
//! side-by-side page where each step runs on SQLite (in the SQL worker, [`sql`]) and on a
//! kvlab engine of its own (a separate workspace from the console).
//!
//! # Hook for the app
//! [`use_walk_route`] reads the location hash; when it is `#/walk…` the app renders
//! [`WalkthroughPage`] instead of the console. Links: `#/walk` (the list), `#/walk/<id>`,
//! `#/walk/<id>/<step>` (deep link: the steps before `<step>` are run first).
//!
//! # Layout
//! - `route`: the `#/walk…` links and the hook that follows them;
//! - `run`: what a step's run produced, SQL and KV;
//! - `session`: what the page keeps between renders (the catalog, the
//!   open walkthrough, its runs) and the async work that loads files and runs steps;
//! - `page`: the side-by-side page of one walkthrough;
//! - `list`: the list of walkthroughs, with search and loading a file;
//! - `view`: how a step, its results, the recap and the key tree are drawn;
//! - `tables`: the SQL side's table browser; `edit`: free
//!   play's code boxes; [`sql`]: the SQL worker's client.

mod edit;
mod list;
mod page;
mod route;
mod run;
mod session;
pub mod sql;
mod tables;
mod view;

pub use self::page::{WalkthroughPage, WalkthroughPageProps};
pub use self::route::{use_walk_route, WalkRoute, BASE};
