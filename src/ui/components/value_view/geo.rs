//! The map of a sorted set whose scores are geohashes: members over a world outline that is
//! fetched the first time a map is shown.

use std::rc::Rc;

use yew::prelude::*;

use super::parts::text;
use crate::engine::types::geohash;
use crate::ui::i18n::Lang;

/// Where the world outline is served: Natural Earth's 1:110m land (public domain) as one
/// SVG path in tenths of a degree, made by `scripts/world-outline.mjs` (about 5 KB gzip).
/// It is fetched the first time a map is shown, so the first load does not carry it.
const OUTLINE_URL: &str = "geo/land-110m.path";

thread_local! {
    /// The outline once fetched; `Some("")` while the fetch is under way or after it failed.
    static OUTLINE: std::cell::RefCell<Option<Rc<str>>> = const { std::cell::RefCell::new(None) };
}

/// The world outline: `None` until fetched. Starts the fetch on first use; `done` is
/// called when it arrives.
fn world_outline(done: Callback<Rc<str>>) -> Option<Rc<str>> {
    if let Some(o) = OUTLINE.with_borrow(Clone::clone) {
        return (!o.is_empty()).then_some(o);
    }
    OUTLINE.set(Some(Rc::from("")));
    wasm_bindgen_futures::spawn_local(async move {
        use wasm_bindgen::JsCast;
        use wasm_bindgen_futures::JsFuture;
        let text = async {
            let window = web_sys::window()?;
            let resp = JsFuture::from(window.fetch_with_str(OUTLINE_URL))
                .await
                .ok()?;
            let resp: web_sys::Response = resp.dyn_into().ok()?;
            if !resp.ok() {
                return None;
            }
            JsFuture::from(resp.text().ok()?).await.ok()?.as_string()
        }
        .await;
        if let Some(text) = text {
            let outline: Rc<str> = Rc::from(text.trim());
            OUTLINE.set(Some(outline.clone()));
            done.emit(outline);
        }
    });
    None
}

/// Properties of [`GeoMap`].
#[derive(Properties, PartialEq)]
pub(super) struct GeoMapProps {
    /// Members and their geohash scores.
    pub(super) pairs: Rc<Vec<(Vec<u8>, f64)>>,
    /// The language.
    pub(super) lang: Lang,
}

/// Geo members plotted over a world outline in an equirectangular projection (longitude
/// and latitude as x and −y; inline SVG, nothing from the network but our own outline),
/// zoomed to the members with a graticule every 1°, 10° or 30°. The view is always twice
/// as wide as tall, as the whole world is in this projection, so it fits its panel's width
/// without distortion.
#[component]
pub(super) fn GeoMap(props: &GeoMapProps) -> Html {
    let s = props.lang.strings();
    let outline = {
        let arrived = use_state(|| None::<Rc<str>>);
        let set = arrived.clone();
        let cached = world_outline(Callback::from(move |o| set.set(Some(o))));
        cached.or_else(|| (*arrived).clone())
    };
    let points: Vec<(String, f64, f64)> = props
        .pairs
        .iter()
        .map(|(m, sc)| {
            let (lon, lat) = geohash::decode_score(*sc);
            (text(m), lon, lat)
        })
        .collect();
    let (mut x0, mut x1, mut y0, mut y1) = (180.0f64, -180.0f64, 90.0f64, -90.0f64);
    for (_, lon, lat) in &points {
        x0 = x0.min(*lon);
        x1 = x1.max(*lon);
        y0 = y0.min(*lat);
        y1 = y1.max(*lat);
    }
    let pad = ((x1 - x0).max(y1 - y0) * 0.15).max(0.5);
    // A 2:1 box around the members, at least 4° wide, kept inside the world when it fits.
    let w = (x1 - x0 + 2.0 * pad)
        .max(2.0 * (y1 - y0 + 2.0 * pad))
        .clamp(4.0, 360.0);
    let h = w / 2.0;
    let left = ((x0 + x1 - w) / 2.0).clamp(-180.0, 180.0 - w);
    let north = ((y0 + y1 + h) / 2.0).clamp(-90.0 + h, 90.0);
    let (x0, x1, y0, y1) = (left, left + w, north - h, north);
    let step = if w > 60.0 {
        30.0
    } else if w > 10.0 {
        10.0
    } else {
        1.0
    };
    let r = w / 120.0;
    let grid_x = ((x0 / step).ceil() as i64..=(x1 / step).floor() as i64).map(|i| i as f64 * step);
    let grid_y = ((y0 / step).ceil() as i64..=(y1 / step).floor() as i64).map(|i| i as f64 * step);
    html! {
        <svg class="geo" viewBox={format!("{x0} {} {w} {h}", -y1)} role="img" aria-label={s.map}
            data-outline={outline.is_some().to_string()}>
            if let Some(d) = outline {
                <path class="land" d={d.to_string()} transform="scale(0.1)" />
            }
            { for grid_x.map(|x| html! { <line class="grid" x1={x.to_string()} x2={x.to_string()} y1={(-y1).to_string()} y2={(-y0).to_string()} /> }) }
            { for grid_y.map(|y| html! { <line class="grid" y1={(-y).to_string()} y2={(-y).to_string()} x1={x0.to_string()} x2={x1.to_string()} /> }) }
            { for points.iter().map(|(name, lon, lat)| html! {
                <g>
                    <circle cx={lon.to_string()} cy={(-lat).to_string()} r={r.to_string()} />
                    <text x={(lon + r * 1.5).to_string()} y={(-lat + r * 0.5).to_string()} font-size={(r * 4.0).to_string()}>{ name.clone() }</text>
                    <title>{ format!("{name}: {lon:.5}, {lat:.5}") }</title>
                </g>
            }) }
        </svg>
    }
}
