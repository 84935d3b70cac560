// kvlab embed script: turns code blocks of Redis commands on any static page into live
// kvlab consoles, each an <iframe> of the kvlab app in embed mode.
//
//   <script src="https://your.site/kvlab/embed.js" defer></script>
//
//   <pre class="kvlab">
//   SET user:1:name ken
//   GET user:1:name
//   </pre>
//
//   <kvlab-console workspace="lesson-2" walkthrough="login" step="3" height="360"></kvlab-console>
//
// Each block's lines are *setup* commands: they run, read-only, in the embed's own
// workspace when it opens and again on reset, and the learner types below them. Options,
// as attributes (data-* on <pre>, plain on <kvlab-console>):
//   workspace    name of the workspace (blocks with the same name share data; default: one
//                per block, named after the page and the block's position). Blocks that
//                share a workspace open one after another, in page order: the first runs
//                its setup when the workspace is empty, and each later one runs its own
//                after it, so a lesson can build on the block above.
//   walkthrough  open a walkthrough instead of a bare console; step: the step to open at
//   height       initial height in px (the embed then reports its own height)
//   lang         en or zh-CN (default: the reader's browser language)
//
// The iframe tells this page its content height with postMessage
// {type: 'kvlab:height', height}, and whether it ran its setup with {type: 'kvlab:ready',
// ran}; messages of any other shape, or from another window, are ignored. Commands travel to the iframe in its URL fragment, never as markup.
(() => {
  'use strict';
  const script = document.currentScript;
  const base = new URL('./', script ? script.src : location.href);
  const origin = base.origin;
  const frames = new Map(); // contentWindow -> iframe
  // Per named workspace, the last embed of the chain; per embed, its place in the chain.
  const chains = new Map(); // workspace -> iframe
  const links = new WeakMap(); // iframe -> { src, ready, ran, next }
  // How long a later embed waits for the one before it (which may never load: it is lazy).
  const CHAIN_WAIT_MS = 10_000;

  const encode = (text) => {
    const bytes = new TextEncoder().encode(text);
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };

  const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'page';

  function frameFor(opts, index) {
    const params = new URLSearchParams();
    params.set('ws', opts.workspace || `embed-${slug(location.pathname)}-${index}`);
    if (opts.setup) params.set('setup', encode(opts.setup));
    if (opts.walkthrough) params.set('walk', opts.walkthrough);
    if (opts.step) params.set('step', String(parseInt(opts.step, 10) || 1));
    if (opts.lang) params.set('lang', opts.lang);
    const iframe = document.createElement('iframe');
    const src = `${base.href}#/embed?${params}`;
    const link = { src, ready: false, ran: false, next: null, started: false };
    links.set(iframe, link);
    const before = opts.workspace ? chains.get(opts.workspace) : null;
    if (opts.workspace) chains.set(opts.workspace, iframe);
    const prev = before && links.get(before);
    if (prev && prev.ready) {
      start(iframe, prev.ran);
    } else if (prev) {
      prev.next = iframe;
      setTimeout(() => start(iframe, false), CHAIN_WAIT_MS);
    } else {
      start(iframe, false);
    }
    iframe.title = opts.title || 'kvlab console';
    iframe.loading = 'lazy';
    iframe.className = 'kvlab-embed';
    iframe.setAttribute('allow', 'clipboard-write');
    iframe.style.width = '100%';
    iframe.style.border = '1px solid #8884';
    iframe.style.borderRadius = '8px';
    iframe.style.height = `${parseInt(opts.height, 10) || 320}px`;
    return iframe;
  }

  // Loads an embed; `then` when the one before it on its workspace has just run its setup.
  function start(iframe, then) {
    const link = links.get(iframe);
    if (!link || link.started) return;
    link.started = true;
    iframe.src = then ? `${link.src}&then=1` : link.src;
  }

  function ready(iframe, ran) {
    const link = links.get(iframe);
    if (!link || link.ready) return;
    link.ready = true;
    link.ran = ran;
    if (link.next) start(link.next, ran);
  }

  function mount(el, opts, index) {
    const iframe = frameFor(opts, index);
    el.replaceWith(iframe);
    frames.set(iframe.contentWindow, iframe);
    return iframe;
  }

  const attr = (el, name) => el.getAttribute(name) ?? el.getAttribute(`data-${name}`) ?? '';

  function optionsOf(el) {
    return {
      setup: el.tagName === 'PRE' ? el.textContent.replace(/^\n+|\s+$/g, '') : attr(el, 'setup'),
      workspace: attr(el, 'workspace'),
      walkthrough: attr(el, 'walkthrough'),
      step: attr(el, 'step'),
      height: attr(el, 'height'),
      lang: attr(el, 'lang'),
      title: attr(el, 'title'),
    };
  }

  // Blocks are numbered, and chained per workspace, in document order, whichever kind
  // they are and whenever the custom element is defined.
  let counter = 0;
  function upgradeAll(root = document) {
    for (const el of root.querySelectorAll('pre.kvlab:not([data-kvlab-done]), kvlab-console')) {
      if (el.tagName === 'PRE') {
        el.setAttribute('data-kvlab-done', '');
        mount(el, optionsOf(el), counter++);
      } else if (!el.iframe) {
        const opts = optionsOf(el);
        if (!opts.setup) opts.setup = el.textContent.replace(/^\n+|\s+$/g, '');
        el.textContent = '';
        el.iframe = frameFor(opts, counter++);
        el.append(el.iframe);
        frames.set(el.iframe.contentWindow, el.iframe);
      }
    }
  }

  if (!customElements.get('kvlab-console')) {
    customElements.define(
      'kvlab-console',
      class extends HTMLElement {
        connectedCallback() {
          // Added after the page loaded: upgrade it (and anything added with it) in order.
          if (!this.iframe && document.readyState !== 'loading') queueMicrotask(() => upgradeAll());
        }
      },
    );
  }

  window.addEventListener('message', (event) => {
    if (event.origin !== origin) return;
    const iframe = frames.get(event.source) ||
      [...document.querySelectorAll('iframe.kvlab-embed')].find((f) => f.contentWindow === event.source);
    if (!iframe) return;
    const data = event.data;
    if (!data || typeof data !== 'object') return;
    if (data.type === 'kvlab:ready') {
      ready(iframe, data.ran === true);
      return;
    }
    if (data.type !== 'kvlab:height') return;
    const height = Number(data.height);
    if (!Number.isFinite(height) || height < 80 || height > 4000) return;
    iframe.style.height = `${Math.ceil(height)}px`;
  });

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', () => upgradeAll());
  } else {
    upgradeAll();
  }
  window.kvlab = Object.assign(window.kvlab || {}, { upgrade: upgradeAll });
})();
