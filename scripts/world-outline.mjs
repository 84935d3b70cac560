// Derives www/geo/land-110m.path, the world outline under the geo map of the value view,
// from Natural Earth's 1:110m land (public domain) as the npm package world-atlas
// (ISC) redistributes it as TopoJSON. Run it again only to change the detail:
//
//   npm pack world-atlas@2.0.2 && tar xzf world-atlas-2.0.2.tgz
//   node scripts/world-outline.mjs package/land-110m.json > www/geo/land-110m.path
//
// The output is the `d` of one SVG path in an equirectangular projection, in tenths of a
// degree: x = longitude × 10, y = −latitude × 10 (north up), so the value view draws it
// with `transform="scale(0.1)"` in a viewBox of degrees. Each ring is simplified
// (Douglas–Peucker, tolerance TOLERANCE degrees), rings smaller than MIN_AREA square
// degrees are dropped, and points are written relative to the previous one.

import { readFileSync } from 'node:fs';

const TOLERANCE = 0.35;
const MIN_AREA = 1.5;

const topo = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const [sx, sy] = topo.transform.scale;
const [tx, ty] = topo.transform.translate;

// TopoJSON arcs are quantized and delta-encoded.
const arcs = topo.arcs.map((arc) => {
  let x = 0, y = 0;
  return arc.map(([dx, dy]) => {
    x += dx;
    y += dy;
    return [x * sx + tx, y * sy + ty];
  });
});

// An arc index i < 0 means arc ~i reversed; consecutive arcs share their end point.
function ring(indices) {
  const out = [];
  for (const i of indices) {
    const pts = i >= 0 ? arcs[i] : arcs[~i].slice().reverse();
    out.push(...(out.length ? pts.slice(1) : pts));
  }
  return out;
}

function area(pts) {
  let a = 0;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) a += (pts[j][0] + pts[i][0]) * (pts[j][1] - pts[i][1]);
  return Math.abs(a / 2);
}

function simplify(pts, tol) {
  if (pts.length < 4) return pts;
  const keep = new Uint8Array(pts.length);
  keep[0] = keep[pts.length - 1] = 1;
  const stack = [[0, pts.length - 1]];
  while (stack.length) {
    const [a, b] = stack.pop();
    const [ax, ay] = pts[a], [bx, by] = pts[b];
    const len = Math.hypot(bx - ax, by - ay);
    let best = -1, far = tol;
    for (let i = a + 1; i < b; i++) {
      const [px, py] = pts[i];
      // A closed ring starts and ends at one point: measure from it.
      const d = len === 0
        ? Math.hypot(px - ax, py - ay)
        : Math.abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / len;
      if (d > far) { far = d; best = i; }
    }
    if (best > 0) {
      keep[best] = 1;
      stack.push([a, best], [best, b]);
    }
  }
  return pts.filter((_, i) => keep[i]);
}

let d = '';
for (const geom of topo.objects.land.geometries) {
  const polys = geom.type === 'MultiPolygon' ? geom.arcs : [geom.arcs];
  for (const poly of polys) {
    for (const r of poly) {
      const pts = ring(r);
      if (area(pts) < MIN_AREA) continue;
      const simple = simplify(pts, TOLERANCE);
      if (simple.length < 4) continue;
      let px = 0, py = 0;
      simple.slice(0, -1).forEach(([lon, lat], i) => {
        const x = Math.round(lon * 10), y = Math.round(-lat * 10);
        if (i === 0) d += `M${x} ${y}`;
        else if (x !== px || y !== py) d += `l${x - px} ${y - py}`.replace(/ -/g, '-');
        [px, py] = [x, y];
      });
      d += 'z';
    }
  }
}
process.stdout.write(d + "\n");
