//! The paths `crate::share::…` that walkthroughs and older code use: share links are in
//! [`crate::app::share`], the URL routes in [`crate::app::route`].

pub use crate::app::route::{Embed, Route};
pub use crate::app::share::*;
