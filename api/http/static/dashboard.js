// lastline dashboard: plain JS, no build step. Data: GET /v1/reports/hit-rate and GET /v1/events.
// On a multi-tenant server open /dashboard#key=<API key>; the key never leaves this browser
// except as the Authorization header of these two calls.
(function () {
  "use strict";
  var key = (new URLSearchParams(location.hash.slice(1))).get("key");
  var headers = key ? { Authorization: "Bearer " + key } : {};
  var $ = function (id) { return document.getElementById(id); };

  function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%"; }
  function when(t) { return new Date(t * 1000).toLocaleString(); }
  function clear(el) { while (el.firstChild) { el.removeChild(el.firstChild); } }
  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value === null || value === undefined ? "" : String(value);
    if (cls) { el.className = cls; }
    return el;
  }

  function bars(el, rows) {
    clear(el);
    var max = rows.reduce(function (m, r) { return Math.max(m, r.value); }, 0);
    if (!rows.length || max === 0) { el.appendChild(text("div", "no data in this window", "empty")); return; }
    rows.forEach(function (r) {
      var row = text("div", "", "row");
      row.appendChild(text("span", r.label));
      var bar = text("div", "", "bar");
      bar.style.width = (100 * r.value / max).toFixed(1) + "%";
      if (r.color) { bar.style.background = r.color; }
      row.appendChild(bar);
      row.appendChild(text("span", r.value));
      el.appendChild(row);
    });
  }

  function series(svg, points) {
    clear(svg);
    var ns = "http://www.w3.org/2000/svg", w = 640, h = 180, pad = 8;
    [0.25, 0.5, 0.75].forEach(function (y) {
      var line = document.createElementNS(ns, "line");
      line.setAttribute("x1", 0); line.setAttribute("x2", w);
      line.setAttribute("y1", h - pad - y * (h - 2 * pad)); line.setAttribute("y2", h - pad - y * (h - 2 * pad));
      line.setAttribute("stroke", "#e3e6ea");
      svg.appendChild(line);
      var label = document.createElementNS(ns, "text");
      label.setAttribute("x", 4); label.setAttribute("y", h - pad - y * (h - 2 * pad) - 3);
      label.setAttribute("font-size", "10"); label.setAttribute("fill", "#99a");
      label.textContent = (100 * y) + "%";
      svg.appendChild(label);
    });
    if (!points.length) { return; }
    var step = w / points.length;
    points.forEach(function (p, i) {
      var n = p.lookups || 0, rate = p.hit_rate === null ? 0 : p.hit_rate;
      var bh = n ? Math.max(2, rate * (h - 2 * pad)) : 2;  // a grey sliver marks "no lookups"
      var rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", i * step + 2); rect.setAttribute("width", Math.max(1, step - 4));
      rect.setAttribute("y", h - pad - bh); rect.setAttribute("height", bh);
      rect.setAttribute("fill", n ? "#3b82f6" : "#d5d9df");
      var title = document.createElementNS(ns, "title");
      title.textContent = when(p.end) + ": " + pct(p.hit_rate) + " of " + n + " lookups";
      rect.appendChild(title);
      svg.appendChild(rect);
    });
  }

  var CONF = { high: "#16a34a", medium: "#f59e0b", low: "#dc2626" };

  function render(report, events) {
    $("tenant").textContent = report.tenant;
    var hr = $("hit-rate");
    hr.textContent = pct(report.hit_rate);
    hr.setAttribute("data-value", report.hit_rate === null ? "" : String(report.hit_rate));
    $("hits").textContent = report.hits;
    $("lookups").textContent = report.lookups;
    $("entries").textContent = report.entries;
    $("fallbacks").textContent = report.fallback_requests;
    $("tiers").textContent = Object.keys(report.events_by_tier).sort().map(function (k) {
      return k + " " + report.events_by_tier[k];
    }).join(" · ");
    series($("series"), report.series);
    if (report.series.length) { $("series-start").textContent = when(report.series[0].start); }
    var layers = report.hits_by_layer;
    bars($("layers"), ["exact", "fuzzy", "semantic"].filter(function (k) { return k in layers; })
      .concat(Object.keys(layers).filter(function (k) { return ["exact", "fuzzy", "semantic"].indexOf(k) < 0; }))
      .map(function (k) { return { label: k, value: layers[k] }; })
      .concat(Object.keys(report.misses_by_reason || {}).sort().map(function (k) {
        return { label: "miss: " + k, value: report.misses_by_reason[k], color: "#9ca3af" };
      })));
    bars($("answers"), report.answers.map(function (a) {
      return { label: a.source + " / " + a.confidence, value: a.count, color: CONF[a.confidence] };
    }));
    var body = $("events").tBodies[0];
    clear(body);
    events.forEach(function (e) {
      var tr = document.createElement("tr");
      [when(e.ts), e.route, e.tier, e.depth, e.confidence, e.reason, e.path].forEach(function (v) { tr.appendChild(text("td", v)); });
      tr.appendChild(text("td", e.prompt_hash.slice(0, 12), "hash"));
      body.appendChild(tr);
    });
    $("status").textContent = "updated " + new Date(report.generated_at * 1000).toLocaleTimeString();
  }

  function get(url) {
    return fetch(url, { headers: headers }).then(function (r) {
      if (!r.ok) { return r.json().then(function (b) { throw new Error(r.status + " " + (b.detail || b.error)); }); }
      return r.json();
    });
  }

  function load() {
    var win = $("window").value;
    return Promise.all([
      get("/v1/reports/hit-rate?window=" + win + "&buckets=24"),
      get("/v1/events?limit=20"),
    ]).then(function (got) {
      render(got[0], got[1].events);
      document.body.setAttribute("data-state", "loaded");
    }).catch(function (err) {
      $("status").textContent = "error: " + err.message;
      document.body.setAttribute("data-state", "error");
    });
  }

  $("window").addEventListener("change", load);
  load();
  setInterval(load, 15000);
})();
