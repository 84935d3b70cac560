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
//   hashes), then the network. A navigation to a page of the build (examples/tutorial.html,
//   say) gets that page; only the app's own address, the scope root or its index.html
//   with any query (the app's routes live in the fragment), gets the app shell, so the app
//   starts with the network off. Answering every navigation with index.html, as an app
//   shell worker often does, breaks the other pages: index.html's relative asset URLs then
//   resolve under their directory. Nothing from other origins is ever fetched or cached.
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

// The app shell's own addresses, with the query and fragment left off.
const SCOPE = new URL('./', self.location.href).href;
const APP = new Set([SCOPE, `${SCOPE}index.html`]);

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const page = `${url.origin}${url.pathname}`;
  // Cached files are matched without their query (names carry content hashes).
  const key = request.mode === 'navigate' && APP.has(page) ? './index.html' : request;
  event.respondWith(
    caches.open(CACHE).then((cache) => cache.match(key, { ignoreSearch: true }).then((hit) => hit || fetch(request))),
  );
});
