// Strand's console: the live tail of the message browser and the metric charts. Plain
// JavaScript, no library. Everything from data is put in the page as text (textContent), never
// as markup.
"use strict";

// --- the live tail -------------------------------------------------------------------------------
// Polls /topics/{topic}/tail every second: the first answer gives the partitions' latest offsets,
// each later one the records after them (at most 100 a poll) and where to ask from next. The table
// keeps the newest data-max-rows rows.
function startTail(section) {
  const topic = section.dataset.topic;
  const maxRows = Number(section.dataset.maxRows) || 200;
  const body = section.querySelector("tbody");
  const button = section.querySelector("#tail-toggle");
  const status = section.querySelector("#tail-status");
  let from = null;
  let timer = null;
  let received = 0;

  function cell(row, text, pre) {
    const td = row.insertCell();
    if (text === null || text === undefined) {
      const span = document.createElement("span");
      span.className = "none";
      span.textContent = "null";
      td.appendChild(span);
    } else if (pre) {
      const block = document.createElement("pre");
      block.textContent = text;
      td.appendChild(block);
    } else {
      td.textContent = text;
    }
    return td;
  }

  function show(record) {
    const none = body.querySelector("td.none");
    if (none) none.parentElement.remove();
    const row = body.insertRow(0);
    row.className = "fresh";
    cell(row, String(record.partition));
    cell(row, String(record.offset));
    cell(row, record.timestamp);
    cell(row, record.key, true);
    cell(row, record.value, true);
    const headers = cell(row, "");
    for (const [name, value] of record.headers) {
      const div = document.createElement("div");
      div.className = "header";
      const b = document.createElement("b");
      b.textContent = name;
      div.appendChild(b);
      const pre = document.createElement("pre");
      pre.textContent = value === null ? "null" : value;
      div.appendChild(pre);
      headers.appendChild(div);
    }
    while (body.rows.length > maxRows) body.deleteRow(body.rows.length - 1);
  }

  async function poll() {
    const query = from === null ? "" : "?from=" + encodeURIComponent(from);
    try {
      const answer = await fetch("/topics/" + encodeURIComponent(topic) + "/tail" + query, { cache: "no-store" });
      if (!answer.ok) throw new Error("HTTP " + answer.status);
      const data = await answer.json();
      from = data.from;
      for (const record of data.records) show(record);
      received += data.records.length;
      status.textContent = "live · " + received + " received";
      status.className = "good";
    } catch (e) {
      status.textContent = "error: " + e.message;
      status.className = "bad";
    }
    if (timer !== null) timer = setTimeout(poll, 1000);
  }

  button.addEventListener("click", () => {
    if (timer === null) {
      timer = setTimeout(poll, 0);
      button.textContent = "Stop";
      status.textContent = "starting";
    } else {
      clearTimeout(timer);
      timer = null;
      from = null;
      button.textContent = "Start";
      status.textContent = "stopped";
      status.className = "none";
    }
  });
}

// --- the charts ------------------------------------------------------------------------------------
// Reads Prometheus's text format: the sum over every label set of each series named on the page.
function sums(text, wanted) {
  const out = new Map();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    const brace = line.indexOf("{");
    const name = brace >= 0 && brace < space ? line.slice(0, brace) : line.slice(0, space);
    if (!wanted.has(name)) continue;
    const value = Number(line.slice(space + 1));
    if (Number.isFinite(value)) out.set(name, (out.get(name) || 0) + value);
  }
  return out;
}

function human(value, unit) {
  const abs = Math.abs(value);
  let text;
  if (unit.startsWith("B") && abs >= 1024) {
    const units = ["Ki", "Mi", "Gi", "Ti"];
    let v = value / 1024;
    let i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return v.toFixed(1) + " " + units[i] + unit;
  }
  text = abs >= 100 || Number.isInteger(value) ? value.toFixed(0) : value.toFixed(2);
  return text + (unit ? " " + unit : "");
}

function draw(figure, points, unit) {
  const svg = figure.querySelector("svg");
  const ns = "http://www.w3.org/2000/svg";
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const max = Math.max(1e-9, ...points);
  const step = points.length > 1 ? 300 / (points.length - 1) : 300;
  const coords = points.map((v, i) => (i * step).toFixed(1) + "," + (96 - (v / max) * 90).toFixed(1));
  const grid = document.createElementNS(ns, "line");
  grid.setAttribute("x1", "0"); grid.setAttribute("x2", "300");
  grid.setAttribute("y1", "96"); grid.setAttribute("y2", "96");
  grid.setAttribute("class", "axis");
  svg.appendChild(grid);
  if (coords.length > 0) {
    const area = document.createElementNS(ns, "polygon");
    area.setAttribute("points", "0,96 " + coords.join(" ") + " " + ((points.length - 1) * step).toFixed(1) + ",96");
    area.setAttribute("class", "area");
    svg.appendChild(area);
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", coords.join(" "));
    line.setAttribute("class", "line");
    svg.appendChild(line);
  }
  const latest = figure.querySelector(".latest");
  latest.textContent = points.length ? human(points[points.length - 1], unit) + " (max " + human(max, unit) + ")" : "–";
}

function startCharts(section) {
  const figures = [...section.querySelectorAll("figure.chart")];
  const wanted = new Set(figures.map((f) => f.dataset.series));
  const keep = Number(section.dataset.points) || 60;
  const series = new Map(figures.map((f) => [f.dataset.series, []]));
  const status = document.getElementById("charts-status");
  let previous = null;
  let previousAt = 0;

  async function sample() {
    try {
      const answer = await fetch("/metrics", { cache: "no-store" });
      if (!answer.ok) throw new Error("HTTP " + answer.status);
      const now = Date.now();
      const values = sums(await answer.text(), wanted);
      for (const figure of figures) {
        const name = figure.dataset.series;
        const value = values.get(name) || 0;
        let point = value;
        if (figure.dataset.kind === "rate") {
          if (previous === null) continue;
          const seconds = (now - previousAt) / 1000;
          point = seconds > 0 ? Math.max(0, (value - (previous.get(name) || 0)) / seconds) : 0;
        }
        const points = series.get(name);
        points.push(point);
        if (points.length > keep) points.shift();
        draw(figure, points, figure.dataset.unit);
      }
      previous = values;
      previousAt = now;
      status.textContent = "updated " + new Date(now).toLocaleTimeString();
      status.className = "good";
    } catch (e) {
      status.textContent = "error: " + e.message;
      status.className = "bad";
    }
    setTimeout(sample, 2000);
  }
  sample();
}

document.addEventListener("DOMContentLoaded", () => {
  const tail = document.getElementById("tail");
  if (tail) startTail(tail);
  const charts = document.getElementById("charts");
  if (charts) startCharts(charts);
});
