//! The `#/walk…` links: [`WalkRoute`], and [`use_walk_route`], the hook that follows the
//! location hash.

use yew::prelude::*;

use crate::app::route::Route;
use crate::ui::services::location::{self, HashListener};

/// Where the walkthrough files are served from (trunk copies `www/walkthroughs/` there).
pub const BASE: &str = "walkthroughs/";

/// A parsed `#/walk…` location.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WalkRoute {
    /// The walkthrough's id; `None` for the list.
    pub id: Option<String>,
    /// The 1-based step shown.
    pub step: usize,
}

impl WalkRoute {
    /// Parses a location hash (see [`Route::parse`]); `None` when it is not a walkthrough
    /// link.
    pub fn parse(hash: &str) -> Option<WalkRoute> {
        match Route::parse(hash) {
            Route::Walk { id, step } => Some(WalkRoute {
                id,
                step: step.unwrap_or(1),
            }),
            _ => None,
        }
    }

    /// The hash that leads here.
    pub fn hash(&self) -> String {
        let route = Route::Walk {
            id: self.id.clone(),
            step: self.id.as_ref().map(|_| self.step.max(1)),
        };
        format!("#{}", route.fragment())
    }
}

pub(super) fn current_hash() -> String {
    location::hash()
}

pub(super) fn go(route: &WalkRoute) {
    location::set_hash(route.hash().trim_start_matches('#'));
}

/// The walkthrough route in the location hash, kept up to date on `hashchange`; `None` when
/// the hash is not a walkthrough link (the app then shows the console).
#[hook]
pub fn use_walk_route() -> Option<WalkRoute> {
    let route = use_state(|| WalkRoute::parse(&current_hash()));
    {
        let route = route.clone();
        use_effect_with((), move |_| {
            let listener = HashListener::new(move || route.set(WalkRoute::parse(&current_hash())));
            move || drop(listener)
        });
    }
    (*route).clone()
}
