// kvlab's service worker: makes the app work offline after one visit.
//
// scripts/postbuild.mjs writes the real dist/sw.js from this template on every release
// build, filling in BUILD (a hash of every file of the build) and FILES (every file of the
// build, relative to this script). So each build has its own cache, `kvlab-<BUILD>`:
//
// - install: every file of the build is fetched into the new cache before the new worker
//   may take over; a half-filled cache never serves.
// - The new worker then *waits*: the page (www/pwa.js) sees it and offers "reload to
//   update"; accepting posts {type: 'kvlab:skip-waiting'}, the worker activates, deletes the
//   caches of older builds, and the page reloads into the new build entirely. Until then
//   every request is answered from the old build's cache, so no page mixes two builds.
// - fetch: same-origin GETs are answered from the cache first (file names carry content
//   hashes), then the network; navigations get the cached index.html, so the app starts
//   with the network off. Nothing from other origins is ever fetched or cached.
const BUILD = '__KVLAB_BUILD__';
const FILES = __KVLAB_FILES__;
const CACHE = `kvlab-${BUILD}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: 'reload' })))));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('kvlab-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'kvlab:skip-waiting') {
    self.skipWaiting();
  }
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    // Any page of the app (deep links carry their state in the fragment) is index.html.
    event.respondWith(
      caches
        .open(CACHE)
        .then((cache) => cache.match('./index.html'))
        .then((hit) => hit || fetch(request)),
    );
    return;
  }
  event.respondWith(
    caches.open(CACHE).then((cache) =>
      cache.match(request, { ignoreSearch: true }).then((hit) => hit || fetch(request)),
    ),
  );
});
