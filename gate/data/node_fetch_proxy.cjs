// sourcegate run: Node's built-in fetch through the replay server, as a proxy, where Node itself does
// not (before NODE_USE_ENV_PROXY, Node 22.21 and 24, fetch ignores HTTP_PROXY and HTTPS_PROXY).
// Loaded by NODE_OPTIONS=--require; it sends every fetch for another host than the proxy to the proxy,
// in absolute form with the proxy's credentials, which is what a proxy-aware client does. When Node
// already proxies fetch by the environment, or no proxy is set, it does nothing.
"use strict";
(() => {
  const proxied = process.env.HTTPS_PROXY || process.env.HTTP_PROXY;
  if (!proxied || typeof globalThis.fetch !== "function") return;
  const key = Symbol.for("undici.globalDispatcher.1");
  globalThis.fetch("data:,").catch(() => {}); // loads fetch, which sets its global dispatcher
  const inner = globalThis[key];
  if (!inner || inner.constructor.name !== "Agent") return; // an EnvHttpProxyAgent proxies already
  const proxy = new URL(proxied);
  const auth = "Basic " + Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`)
    .toString("base64");
  globalThis[key] = new Proxy(inner, {
    get(target, name) {
      if (name !== "dispatch") {
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (opts, handler) => {
        const origin = new URL(String(opts.origin));
        if (origin.host === proxy.host) return target.dispatch(opts, handler);
        const headers = Array.isArray(opts.headers) ? [...opts.headers, "proxy-authorization", auth]
          : { ...(opts.headers || {}), "proxy-authorization": auth };
        return target.dispatch({ ...opts, origin: proxy.origin, path: origin.origin + opts.path, headers }, handler);
      };
    },
  });
})();
