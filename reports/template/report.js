// lmroof report: renders the inlined Vega-Lite specs and makes the runs table
// sortable. It runs before the Vega libraries load so it can catch anything they
// report, and records the outcome on <body> for tests:
//   data-charts-expected  charts the page holds (written by lmroof)
//   data-charts-rendered  charts embedded with an <svg>
//   data-report-errors    errors and warnings caught (also listed in #report-errors)
//   data-report-state     "loading", then "done" once every chart settled
(function () {
  "use strict";
  var body = document.body;
  var errorCount = 0;

  function describe(value) {
    if (value instanceof Error) return value.stack || String(value);
    if (typeof value === "object" && value !== null) {
      try { return JSON.stringify(value); } catch (e) { return String(value); }
    }
    return String(value);
  }

  function recordError(message) {
    errorCount += 1;
    body.setAttribute("data-report-errors", String(errorCount));
    var pre = document.getElementById("report-errors");
    if (pre) {
      pre.hidden = false;
      pre.textContent += message + "\n";
    }
  }

  // Vega logs its warnings and errors through the console; so does the browser for
  // uncaught exceptions. Record them, then pass them on.
  ["error", "warn"].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      var parts = Array.prototype.map.call(arguments, describe);
      recordError("console." + level + ": " + parts.join(" "));
      if (original) original.apply(console, arguments);
    };
  });
  window.addEventListener("error", function (event) {
    recordError("error: " + event.message + " (" + (event.filename || "page") + ":" + event.lineno + ")");
  });
  window.addEventListener("unhandledrejection", function (event) {
    recordError("unhandled promise rejection: " + describe(event.reason));
  });

  // Faceted charts (one panel per shape) wrap to the page's width: `columns` is set
  // from the container's width before the chart is drawn, so nothing scrolls sideways.
  // Single views (the roofline) use "width": "container" in their spec instead.
  function fitColumns(spec, target) {
    if (!spec.facet || !spec.spec || typeof spec.spec.width !== "number") return spec;
    // A facet with explicit row/column (a grid) cannot wrap: Vega-Lite ignores `columns` there.
    if (spec.facet.row || spec.facet.column) return spec;
    var spacing = spec.spacing && typeof spec.spacing === "object" ? spec.spacing.column || 20 : spec.spacing || 20;
    var cell = spec.spec.width + 60 + spacing;  // panel, its own y axis, the gap
    var available = Math.max(200, target.clientWidth - 24);
    spec.columns = Math.max(1, Math.floor(available / cell));
    return spec;
  }

  // PNG and SVG buttons under each chart: the image comes from the chart's own view.
  // The last export's size is recorded on the section (data-exported-png/-svg) for tests.
  function addExportButtons(section, id, view) {
    var bar = document.createElement("div");
    bar.className = "chart-actions";
    ["png", "svg"].forEach(function (format) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "export";
      button.setAttribute("data-format", format);
      button.textContent = format.toUpperCase();
      button.title = "Download this chart as " + format.toUpperCase();
      button.addEventListener("click", function () {
        view.toImageURL(format, format === "png" ? 2 : 1).then(function (url) {
          var link = document.createElement("a");
          link.href = url;
          link.download = "lmroof-" + id + "." + format;
          document.body.appendChild(link);
          link.click();
          link.remove();
          section.setAttribute("data-exported-" + format, url.slice(0, 22));
        }).catch(function (e) { recordError("export of '" + id + "' as " + format + ": " + describe(e)); });
      });
      bar.appendChild(button);
    });
    section.appendChild(bar);
  }

  function renderCharts() {
    var charts;
    try {
      charts = JSON.parse(document.getElementById("report-charts").textContent);
    } catch (e) {
      recordError("chart data: " + describe(e));
      body.setAttribute("data-report-state", "done");
      return;
    }
    if (typeof vegaEmbed !== "function") {
      recordError("vega-embed did not load");
      body.setAttribute("data-report-state", "done");
      return;
    }
    window.lmroofViews = {};
    var rendered = 0;
    var pending = charts.map(function (chart) {
      var target = document.querySelector('#chart-' + chart.id + ' .chart');
      if (!target) {
        recordError("no container for chart '" + chart.id + "'");
        return Promise.resolve();
      }
      var section = target.parentNode;
      var view = null;
      return vegaEmbed(target, fitColumns(chart.spec, target), { renderer: "svg", actions: false, mode: "vega-lite" })
        .then(function (result) {
          view = result.view;
          window.lmroofViews[chart.id] = view;
          return view.runAsync();
        })
        .then(function () {
          if (target.querySelector("svg")) {
            rendered += 1;
            body.setAttribute("data-charts-rendered", String(rendered));
            section.setAttribute("data-rendered", "true");
            addExportButtons(section, chart.id, view);
          } else {
            recordError("chart '" + chart.id + "' produced no <svg>");
          }
        })
        .catch(function (e) {
          recordError("chart '" + chart.id + "': " + describe(e));
        });
    });
    Promise.all(pending).then(function () {
      body.setAttribute("data-report-state", "done");
    });
  }

  // --- sortable tables ------------------------------------------------------
  function sortValue(cell, type) {
    if (type === "num") {
      var raw = cell.getAttribute("data-sort");
      return raw === null || raw === "" ? null : Number(raw);
    }
    return cell.textContent.trim().toLowerCase();
  }

  function makeSortable(table) {
    var headers = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headers, function (th, column) {
      th.tabIndex = 0;
      th.title = "Sort by " + th.textContent;
      var sort = function () {
        var type = th.getAttribute("data-type") || "text";
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var tbody = table.tBodies[0];
        var rows = Array.prototype.slice.call(tbody.rows);
        rows.forEach(function (row, i) { row._order = i; });
        rows.sort(function (a, b) {
          var x = sortValue(a.cells[column], type), y = sortValue(b.cells[column], type);
          if (x === null || y === null) {  // not measured: always last
            if (x === y) return a._order - b._order;
            return x === null ? 1 : -1;
          }
          var c = x < y ? -1 : x > y ? 1 : 0;
          return (ascending ? c : -c) || a._order - b._order;
        });
        rows.forEach(function (row) { tbody.appendChild(row); });
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); }
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
    renderCharts();
  });
})();
