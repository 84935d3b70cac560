// Registers kvlab's service worker (www/sw.js) in release builds and offers a new build
// with a visible "reload to update" bar instead of switching silently.
//
// Release builds carry <meta name="kvlab-build" content="…"> (scripts/postbuild.mjs adds
// it); development builds (trunk serve) don't, so they never cache anything. The bar is
// plain DOM outside the Yew app, with its text set through textContent, in the page's
// language (zh-CN or English).
const meta = document.querySelector('meta[name="kvlab-build"]');
if (meta && 'serviceWorker' in navigator) {
  // In an embed on another site the browser may deny storage (and service workers) to the
  // frame: reading localStorage then throws, and the app runs from the network.
  let saved = null;
  try {
    saved = localStorage.getItem('kvlab.lang');
  } catch {}
  const zh = (navigator.language || '').toLowerCase().startsWith('zh') || saved === 'zh-CN';
  const text = zh
    ? { note: 'kvlab 有新版本。', reload: '重新加载以更新', later: '稍后' }
    : { note: 'A new version of kvlab is ready.', reload: 'Reload to update', later: 'Later' };

  const offer = (worker) => {
    if (document.getElementById('kvlab-update')) return;
    const bar = document.createElement('div');
    bar.id = 'kvlab-update';
    bar.setAttribute('role', 'status');
    const note = document.createElement('span');
    note.textContent = text.note;
    const reload = document.createElement('button');
    reload.type = 'button';
    reload.textContent = text.reload;
    reload.addEventListener('click', () => {
      window.__kvlabUpdating = true;
      worker.postMessage({ type: 'kvlab:skip-waiting' });
    });
    const later = document.createElement('button');
    later.type = 'button';
    later.textContent = text.later;
    later.addEventListener('click', () => bar.remove());
    bar.append(note, reload, later);
    document.body.append(bar);
  };

  let reloading = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    // Only when a waiting build was accepted (the first install claims without reload).
    if (reloading || !window.__kvlabUpdating) return;
    reloading = true;
    location.reload();
  });

  navigator.serviceWorker
    .register('./sw.js', { scope: './' })
    .then((reg) => {
      const watch = (worker) => {
        worker.addEventListener('statechange', () => {
          if (worker.state === 'installed' && navigator.serviceWorker.controller) offer(worker);
        });
      };
      if (reg.waiting && navigator.serviceWorker.controller) offer(reg.waiting);
      if (reg.installing) watch(reg.installing);
      reg.addEventListener('updatefound', () => reg.installing && watch(reg.installing));
      window.__kvlabServiceWorker = reg;
    })
    .catch((e) => {
      // Expected in a third-party frame (an embed on a tutorial site): say nothing there.
      if (window.top === window) console.warn('kvlab: service worker not registered:', e);
    });
}
