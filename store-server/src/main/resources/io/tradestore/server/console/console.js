// The tradestore console (docs/console.md): an editor for SQL and the JSON query language, a table browser, a
// virtual grid and ECharts charts over the server's own HTTP API. No inline script and no eval: the page's
// Content-Security-Policy allows neither.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const editor = $('editor');
  const highlight = $('highlight');
  const language = $('language');
  const ROW_HEIGHT = 22;
  const NUMERIC = /^(i8|i16|i32|i64|f64|decimal\(\d+\))$/;
  const HISTORY_KEY = 'tradestore.history';
  const TOKEN_KEY = 'tradestore.token';
  const SQL_WORDS = new Set(('select from where group by order limit offset and or not in between as having asc desc '
    + 'is null like sample fill align to calendar with case when then else end distinct on count sum avg min max '
    + 'first last vwap date_trunc interval timestamp true false all any exists join union').split(' '));

  const state = {
    result: null, view: 'grid', chart: null, controller: null, mark: null, texts: { sql: '', json: '' },
  };

  // ------------------------------------------------------------------------------------------------ API calls

  function authHeaders(extra) {
    const h = Object.assign({}, extra || {});
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) {
      h.Authorization = 'Bearer ' + token;
    }
    return h;
  }

  async function api(path, options) {
    const o = Object.assign({}, options || {});
    o.headers = authHeaders(o.headers);
    const res = await fetch(path, o);
    if (res.status === 401) {
      $('token-field').hidden = false;
    }
    return res;
  }

  // Numbers stay the text the server wrote: decimals keep their scale and digits, integers past 2^53 stay exact.
  function parseExact(text) {
    return JSON.parse(text, (key, value, context) => (typeof value === 'number'
      ? (context && typeof context.source === 'string' ? context.source : String(value)) : value));
  }

  async function getJson(path) {
    const res = await api(path);
    const body = parseExact(await res.text());
    if (!res.ok) {
      throw new Error(body.error ? body.error.message : res.status + ' ' + res.statusText);
    }
    return body;
  }

  // --------------------------------------------------------------------------------------- editor and tokens

  function tokens(text, lang) {
    const out = [];
    const re = lang === 'sql'
      ? /(--[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?)|(\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)|([A-Za-z_][A-Za-z0-9_]*)/g
      : /("(?:[^"\\\n]|\\.)*"?)(\s*:)?|(-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)|\b(true|false|null)\b/g;
    let m;
    while ((m = re.exec(text)) !== null) {
      let cls = null;
      let end = m.index + m[0].length;
      if (lang === 'sql') {
        cls = m[1] ? 'tok-com' : m[2] ? 'tok-str' : m[4] ? 'tok-num'
          : m[5] && SQL_WORDS.has(m[5].toLowerCase()) ? 'tok-kw' : null;
      } else if (m[1] !== undefined) {
        cls = m[2] ? 'tok-key' : 'tok-str';
        end = m.index + m[1].length;
      } else {
        cls = m[3] ? 'tok-num' : 'tok-kw';
      }
      if (cls) {
        out.push({ start: m.index, end: end, cls: cls });
      }
    }
    return out;
  }

  function escapeHtml(s) {
    return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  // The text again behind the transparent textarea: tokens coloured, the error's place marked.
  function renderHighlight() {
    const text = editor.value;
    const toks = tokens(text, language.value);
    const cuts = new Set([0, text.length]);
    toks.forEach((t) => { cuts.add(t.start); cuts.add(t.end); });
    const mark = state.mark;
    if (mark) {
      cuts.add(Math.min(mark.start, text.length));
      cuts.add(Math.min(mark.end, text.length));
    }
    const points = Array.from(cuts).sort((a, b) => a - b);
    let html = '';
    let t = 0;
    let inMark = false;
    for (let i = 0; i + 1 < points.length; i++) {
      const a = points[i];
      const b = points[i + 1];
      const marked = mark !== null && a >= mark.start && b <= mark.end && a < b;
      if (marked && !inMark) {
        html += '<mark class="error-mark" data-testid="error-mark">';
      } else if (!marked && inMark) {
        html += '</mark>';
      }
      inMark = marked;
      while (t < toks.length && toks[t].end <= a) {
        t++;
      }
      const piece = escapeHtml(text.slice(a, b));
      html += t < toks.length && toks[t].start <= a && toks[t].end >= b
        ? '<span class="' + toks[t].cls + '">' + piece + '</span>' : piece;
    }
    if (inMark) {
      html += '</mark>';
    }
    highlight.innerHTML = html + '\n';
    syncScroll();
  }

  function syncScroll() {
    highlight.scrollTop = editor.scrollTop;
    highlight.scrollLeft = editor.scrollLeft;
  }

  function insertAtCursor(text) {
    editor.dataset.example = 'false';
    editor.setRangeText(text, editor.selectionStart, editor.selectionEnd, 'end');
    editor.focus();
    renderHighlight();
  }

  // -------------------------------------------------------------------------------------------------- errors

  // The place of a JSON pointer in JSON text: the value it names, or its nearest ancestor that is there.
  function locatePointer(text, pointer) {
    let i = 0;
    const ws = () => { while (i < text.length && /\s/.test(text[i])) { i++; } };
    const string = () => {
      const start = i++;
      while (i < text.length && text[i] !== '"') {
        i += text[i] === '\\' ? 2 : 1;
      }
      i++;
      return JSON.parse(text.slice(start, i));
    };
    const value = () => {
      ws();
      const node = { start: i, end: i, children: null };
      if (text[i] === '{') {
        node.children = new Map();
        i++;
        ws();
        while (text[i] === '"') {
          const key = string();
          ws();
          i++; // ':'
          node.children.set(key, value());
          ws();
          if (text[i] === ',') {
            i++;
            ws();
          }
        }
        i++;
      } else if (text[i] === '[') {
        node.children = [];
        i++;
        ws();
        while (i < text.length && text[i] !== ']') {
          node.children.push(value());
          ws();
          if (text[i] === ',') {
            i++;
          } else {
            break;
          }
        }
        i++;
      } else if (text[i] === '"') {
        string();
      } else {
        const m = /^-?[\w.+-]+/.exec(text.slice(i));
        i += m ? m[0].length : 1;
      }
      node.end = i;
      return node;
    };
    let node;
    try {
      node = value();
    } catch (e) {
      return null;
    }
    const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    for (const p of parts) {
      const next = node.children instanceof Map ? node.children.get(p)
        : Array.isArray(node.children) ? node.children[Number(p)] : undefined;
      if (!next) {
        break;
      }
      node = next;
    }
    return { start: node.start, end: Math.max(node.end, node.start + 1) };
  }

  function offsetOf(text, line, column) {
    let at = 0;
    for (let l = 1; l < line; l++) {
      const nl = text.indexOf('\n', at);
      if (nl < 0) {
        break;
      }
      at = nl + 1;
    }
    return Math.min(text.length, at + Math.max(0, column - 1));
  }

  function showError(error, lang, text) {
    const box = $('error');
    let where = '';
    state.mark = null;
    const pos = error.position || (/line (\d+), column (\d+)/.exec(error.message || '') || null);
    if (pos && text !== undefined) {
      const line = Number(pos.line || pos[1]);
      const column = Number(pos.column || pos[2]);
      const start = offsetOf(text, line, column);
      const word = /^('[^']*'?|"[^"]*"?|[\w.]+|\S)/.exec(text.slice(start));
      state.mark = { start: start, end: start + (word ? word[0].length : 1) };
      where = 'line ' + line + ', column ' + column;
    } else if (error.path && lang === 'json' && text !== undefined) {
      state.mark = locatePointer(text, error.path);
      where = 'at ' + error.path;
    }
    box.textContent = (error.code ? error.code + ': ' : '') + (error.message || 'failed')
      + (where && (error.message || '').indexOf(where) < 0 ? ' (' + where + ')' : '');
    box.dataset.where = where;
    box.hidden = false;
    renderHighlight();
    if (state.mark) {
      editor.setSelectionRange(state.mark.start, state.mark.end);
      const line = text.slice(0, state.mark.start).split('\n').length;
      editor.scrollTop = Math.max(0, (line - 3) * 19);
      syncScroll();
    }
  }

  function clearError() {
    $('error').hidden = true;
    $('error').textContent = '';
    if (state.mark) {
      state.mark = null;
      renderHighlight();
    }
  }

  // ------------------------------------------------------------------------------------------------- results

  function isNumeric(column) {
    return NUMERIC.test(column.type);
  }

  function formatCount(s) {
    try {
      return BigInt(s).toLocaleString('en-US');
    } catch (e) {
      return String(s);
    }
  }

  function showStats(r) {
    const s = r.stats || {};
    const micros = Number(s.elapsedMicros || 0);
    $('stats').textContent = formatCount(r.rows.length) + ' rows' + (r.truncated === true ? ' (truncated)' : '')
      + ' · ' + (micros / 1000).toFixed(micros < 10000 ? 2 : 1) + ' ms in the engine'
      + ' · ' + formatCount(s.rowsScanned || 0) + ' rows scanned'
      + ' · ' + formatCount(s.segmentsSkipped || 0) + ' segments skipped'
      + ' · ' + formatCount(s.indexedSegments || 0) + ' answered by indexes';
  }

  function renderGrid(r) {
    const head = $('grid-head');
    const rows = $('grid-rows');
    const body = $('grid-body');
    head.textContent = '';
    rows.textContent = '';
    const widths = r.columns.map((c, i) => {
      let chars = c.name.length + 2;
      for (let k = 0; k < Math.min(r.rows.length, 200); k++) {
        const v = r.rows[k][i];
        chars = Math.max(chars, v === null ? 4 : String(v).length);
      }
      return Math.min(420, Math.max(60, chars * 7.4 + 18));
    });
    const total = widths.reduce((a, b) => a + b, 0);
    r.columns.forEach((c, i) => {
      const cell = document.createElement('div');
      cell.className = 'cell' + (isNumeric(c) ? ' num' : '');
      cell.style.width = widths[i] + 'px';
      cell.textContent = c.name;
      cell.title = c.name + ' ' + c.type;
      head.appendChild(cell);
    });
    $('grid-spacer').style.height = (r.rows.length * ROW_HEIGHT) + 'px';
    $('grid-spacer').style.width = total + 'px';
    rows.style.width = total + 'px';
    body.scrollTop = 0;
    state.grid = { r: r, widths: widths, numeric: r.columns.map(isNumeric), first: -1 };
    drawRows();
  }

  // Only the rows in view (and a margin of 20 above and 40 below) are in the page, however many the answer has.
  function drawRows() {
    const g = state.grid;
    if (!g) {
      return;
    }
    const body = $('grid-body');
    $('grid-head').scrollLeft = body.scrollLeft;
    const first = Math.max(0, Math.floor(body.scrollTop / ROW_HEIGHT) - 20);
    if (first === g.first && g.height === body.clientHeight) {
      return;
    }
    g.first = first;
    g.height = body.clientHeight;
    const last = Math.min(g.r.rows.length, first + Math.ceil(body.clientHeight / ROW_HEIGHT) + 40);
    const frag = document.createDocumentFragment();
    for (let k = first; k < last; k++) {
      const row = document.createElement('div');
      row.className = 'row';
      row.style.top = (k * ROW_HEIGHT) + 'px';
      row.dataset.row = String(k);
      const values = g.r.rows[k];
      for (let i = 0; i < values.length; i++) {
        const cell = document.createElement('div');
        const v = values[i];
        cell.className = 'cell' + (g.numeric[i] ? ' num' : '') + (v === null ? ' null' : '');
        cell.style.width = g.widths[i] + 'px';
        cell.textContent = v === null ? 'null' : String(v);
        row.appendChild(cell);
      }
      frag.appendChild(row);
    }
    const rows = $('grid-rows');
    rows.textContent = '';
    rows.appendChild(frag);
  }

  function chartShape(r) {
    const cols = r.columns;
    const lower = cols.map((c) => c.name.toLowerCase());
    const numeric = (i) => i >= 0 && isNumeric(cols[i]);
    const time = cols.findIndex((c) => c.type === 'timestamp');
    const values = cols.map((c, i) => i).filter((i) => i !== time && numeric(i));
    if (time >= 0) {
      const ohlc = ['open', 'high', 'low', 'close'].map((n) => lower.indexOf(n));
      if (ohlc.every(numeric)) {
        const volume = lower.indexOf('volume');
        return { kind: 'candlestick', time: time, ohlc: ohlc, volume: numeric(volume) ? volume : -1 };
      }
      if (values.length > 0) {
        return { kind: 'line', time: time, values: values };
      }
    }
    const texts = cols.map((c, i) => i).filter((i) => cols[i].type === 'symbol' || cols[i].type === 'char');
    if (texts.length === 1 && values.length > 0) {
      return { kind: 'bar', key: texts[0], values: values };
    }
    return null;
  }

  function shortTime(iso) {
    return iso.replace('T', ' ').replace(/(:\d\d)(\.\d+)?Z$/, '$1');
  }

  function chartOption(r, shape) {
    const num = (v) => (v === null ? null : Number(v));
    const tooltip = { trigger: 'axis', renderMode: 'richText', axisPointer: { type: 'cross' } };
    if (shape.kind === 'bar') {
      return {
        animation: false, tooltip: tooltip, legend: { top: 0 },
        grid: { left: 70, right: 24, top: 32, bottom: 48 },
        xAxis: { type: 'category', data: r.rows.map((row) => String(row[shape.key])) },
        yAxis: { type: 'value', scale: true },
        series: shape.values.map((i) => ({ type: 'bar', name: r.columns[i].name, data: r.rows.map((row) => num(row[i])) })),
      };
    }
    const rows = r.rows.filter((row) => row[shape.time] !== null).slice()
      .sort((a, b) => Date.parse(a[shape.time]) - Date.parse(b[shape.time]));
    const times = rows.map((row) => shortTime(String(row[shape.time])));
    // within one day the axis shows times of day; across days, the month and day too
    const oneDay = times.length > 0 && times[0].slice(0, 10) === times[times.length - 1].slice(0, 10);
    const axisLabel = { formatter: (v) => (oneDay ? v.slice(11, 16) : v.slice(5, 16)) };
    if (shape.kind === 'line') {
      return {
        animation: false, tooltip: tooltip, legend: { top: 0 },
        grid: { left: 70, right: 24, top: 32, bottom: 48 },
        dataZoom: [{ type: 'inside' }],
        xAxis: { type: 'category', data: times, axisLabel: axisLabel },
        yAxis: { type: 'value', scale: true },
        series: shape.values.map((i) => ({
          type: 'line', name: r.columns[i].name, showSymbol: false, data: rows.map((row) => num(row[i])),
        })),
      };
    }
    const [o, h, l, c] = shape.ohlc;
    const volume = shape.volume >= 0;
    const option = {
      animation: false, tooltip: tooltip, axisPointer: { link: [{ xAxisIndex: 'all' }] },
      grid: volume ? [{ left: 70, right: 24, top: 16, height: '60%' }, { left: 70, right: 24, top: '76%', height: '16%' }]
        : [{ left: 70, right: 24, top: 16, bottom: 48 }],
      dataZoom: [{ type: 'inside', xAxisIndex: volume ? [0, 1] : [0] }],
      xAxis: [{ type: 'category', data: times, boundaryGap: true, axisLabel: axisLabel }],
      yAxis: [{ type: 'value', scale: true }],
      series: [{
        type: 'candlestick', name: r.columns[c].name === 'close' ? 'price' : r.columns[c].name,
        itemStyle: { color: '#16a34a', color0: '#dc2626', borderColor: '#16a34a', borderColor0: '#dc2626' },
        data: rows.map((row) => [num(row[o]), num(row[c]), num(row[l]), num(row[h])]),
      }],
    };
    if (volume) {
      option.xAxis.push({ type: 'category', gridIndex: 1, data: times, axisLabel: { show: false } });
      option.yAxis.push({ type: 'value', gridIndex: 1, splitNumber: 2 });
      option.series.push({
        type: 'bar', name: r.columns[shape.volume].name, xAxisIndex: 1, yAxisIndex: 1,
        itemStyle: { color: '#94a3b8' }, data: rows.map((row) => num(row[shape.volume])),
      });
    }
    return option;
  }

  function setView(view) {
    const shape = state.shape;
    state.view = view === 'chart' && shape ? 'chart' : 'grid';
    $('results').hidden = state.view !== 'grid';
    $('chart').hidden = state.view !== 'chart';
    $('show-grid').classList.toggle('active', state.view === 'grid');
    $('show-chart').classList.toggle('active', state.view === 'chart');
    if (state.view === 'chart') {
      if (!state.chart) {
        state.chart = window.echarts.init($('chart'), null, { renderer: 'canvas' });
      }
      state.chart.clear();
      state.chart.setOption(chartOption(state.result, shape));
      state.chart.resize();
      $('chart').dataset.kind = shape.kind;
    } else {
      drawRows();
    }
  }

  function showResult(r) {
    state.result = r;
    state.shape = chartShape(r);
    $('results').dataset.rows = String(r.rows.length);
    $('chart').dataset.kind = state.shape ? state.shape.kind : '';
    showStats(r);
    $('show-grid').disabled = false;
    $('show-chart').disabled = state.shape === null;
    $('show-chart').title = state.shape ? 'a ' + state.shape.kind + ' chart of the result'
      : 'a chart needs a time column with numbers (open, high, low, close for candles), or one text key';
    $('download').disabled = false;
    $('results').hidden = false;
    renderGrid(r);
    // bars as candles at once; other shapes open as a grid, one click from their chart
    setView(state.shape && state.shape.kind === 'candlestick' ? 'chart' : 'grid');
  }

  function csvOf(r) {
    const field = (v) => {
      if (v === null) {
        return '';
      }
      const s = String(v);
      return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
    };
    const lines = [r.columns.map((c) => field(c.name)).join(',')];
    r.rows.forEach((row) => lines.push(row.map(field).join(',')));
    return lines.join('\n') + '\n';
  }

  // The answer as shown, or, when the answer was cut short ("truncated"), every row again as the server's CSV stream.
  async function download() {
    if (!state.result) {
      return;
    }
    let blob;
    if (state.result.truncated === true && state.ran) {
      const ran = state.ran;
      const res = await api((ran.lang === 'sql' ? '/v1/sql' : '/v1/query') + '?format=csv', {
        method: 'POST', body: ran.text,
        headers: { 'Content-Type': ran.lang === 'sql' ? 'application/sql' : 'application/json' },
      });
      if (!res.ok) {
        showError({ message: 'download: ' + res.status + ' ' + (await res.text()).slice(0, 300) });
        return;
      }
      blob = await res.blob();
      $('download').dataset.source = 'server';
    } else {
      blob = new Blob([csvOf(state.result)], { type: 'text/csv' });
      $('download').dataset.source = 'page';
    }
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = 'tradestore-result.csv';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  // ----------------------------------------------------------------------------------------------- running

  function setRunning(running) {
    $('run').disabled = running;
    $('cancel').disabled = !running;
    document.body.dataset.running = running ? 'true' : 'false';
  }

  async function run() {
    const text = editor.value;
    const lang = language.value;
    if (state.controller || text.trim() === '') {
      return;
    }
    remember(lang, text);
    clearError();
    const controller = new AbortController();
    state.controller = controller;
    // the server knows the query by this id: Cancel asks it to stop the query, not only to drop the answer
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    state.queryId = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    setRunning(true);
    try {
      const res = await api((lang === 'sql' ? '/v1/sql' : '/v1/query') + '?queryId=' + state.queryId, {
        method: 'POST', body: text, signal: controller.signal,
        headers: { 'Content-Type': lang === 'sql' ? 'application/sql' : 'application/json' },
      });
      const body = await res.text();
      let data;
      try {
        data = parseExact(body);
      } catch (e) {
        data = { error: { message: res.status + ': ' + body.slice(0, 300) } };
      }
      if (!res.ok || data.error) {
        showError(data.error || { message: String(res.status) }, lang, text);
      } else {
        state.ran = { lang: lang, text: text };
        showResult(data);
      }
    } catch (e) {
      showError({ message: e.name === 'AbortError' ? 'cancelled: the server stops the query' : String(e) });
    } finally {
      state.controller = null;
      setRunning(false);
    }
  }

  function cancel() {
    if (state.controller) {
      const id = state.queryId;
      state.controller.abort();
      api('/v1/queries/' + id, { method: 'DELETE' }).catch(() => {});
    }
  }

  // ------------------------------------------------------------------------------------------------ history

  function history() {
    try {
      const h = JSON.parse(localStorage.getItem(HISTORY_KEY) || '[]');
      return Array.isArray(h) ? h : [];
    } catch (e) {
      return [];
    }
  }

  function remember(lang, text) {
    const h = history().filter((e) => !(e.language === lang && e.text === text));
    h.unshift({ language: lang, text: text });
    localStorage.setItem(HISTORY_KEY, JSON.stringify(h.slice(0, 50)));
    renderHistory();
  }

  function renderHistory() {
    const select = $('history');
    select.length = 1;
    history().forEach((e, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      const first = e.text.trim().split('\n')[0];
      o.textContent = e.language.toUpperCase() + ': ' + (first.length > 70 ? first.slice(0, 70) + '...' : first);
      select.appendChild(o);
    });
  }

  function pickHistory() {
    const select = $('history');
    const e = history()[Number(select.value)];
    select.value = '';
    if (e) {
      language.value = e.language;
      editor.dataset.example = 'false';
      editor.value = e.text;
      clearError();
      renderHighlight();
      editor.focus();
    }
  }

  // -------------------------------------------------------------------------------------------- table browser

  async function loadTables() {
    const list = $('tables');
    let data;
    try {
      data = await getJson('/v1/tables');
    } catch (e) {
      list.textContent = String(e.message || e);
      return;
    }
    list.textContent = '';
    const described = [];
    for (const t of data.tables) {
      const li = document.createElement('li');
      li.dataset.table = t.name;
      const name = document.createElement('div');
      name.className = 'table-name';
      name.textContent = t.name;
      name.title = 'insert the name';
      name.addEventListener('click', () => insertAtCursor(t.name));
      const facts = document.createElement('div');
      facts.className = 'table-facts';
      facts.textContent = t.rows !== undefined ? formatCount(t.rows) + ' rows' : (t.error || '');
      const cols = document.createElement('ul');
      cols.className = 'columns';
      li.append(name, facts, cols);
      list.appendChild(li);
      described.push(describe(t.name, facts, cols));
    }
    if (data.tables.length > 0) {
      examples(data.tables[0].name);
    }
    await Promise.all(described);
    document.body.dataset.tables = 'ready';
  }

  async function describe(table, facts, cols) {
    let d;
    try {
      d = await getJson('/v1/tables/' + encodeURIComponent(table));
    } catch (e) {
      facts.textContent += ' · ' + e.message;
      return;
    }
    state.tables = state.tables || {};
    state.tables[table] = d;
    for (const c of d.columns) {
      const li = document.createElement('li');
      li.className = 'column';
      li.dataset.column = c.name;
      li.title = 'insert ' + c.name;
      const n = document.createElement('span');
      n.textContent = c.name;
      const ty = document.createElement('span');
      ty.className = 'column-type';
      ty.textContent = c.type;
      li.append(n, ty);
      li.addEventListener('click', () => insertAtCursor(c.name));
      cols.appendChild(li);
    }
    if (d.timestamp) {
      try {
        const res = await api('/v1/sql', {
          method: 'POST', headers: { 'Content-Type': 'application/sql' },
          body: 'SELECT min(' + d.timestamp + ') AS first, max(' + d.timestamp + ') AS last FROM ' + table,
        });
        const r = parseExact(await res.text());
        if (res.ok && r.rows.length === 1 && r.rows[0][0] !== null) {
          facts.textContent += ' · ' + shortTime(String(r.rows[0][0])) + ' to ' + shortTime(String(r.rows[0][1]));
        }
      } catch (e) {
        // the range is a nicety: the table stays listed without it
      }
    }
    if (state.examplesFor === table) {
      examples(table);
    }
  }

  function examples(table) {
    state.examplesFor = table;
    const d = state.tables && state.tables[table];
    const columns = d ? d.columns.map((c) => c.name) : [];
    state.texts.sql = 'SELECT *\nFROM ' + table + '\nLIMIT 100';
    state.texts.json = JSON.stringify({ table: table, columns: columns.slice(0, 6), limit: 100 }, null, 2);
    // only into an editor nobody has typed in (typing, even emptying it, sets example to false)
    if (editor.dataset.example !== 'false' && (editor.value.trim() === '' || editor.dataset.example === 'true')) {
      editor.value = state.texts[language.value];
      editor.dataset.example = 'true';
      renderHighlight();
    }
  }

  // ----------------------------------------------------------------------------------------------- wiring

  function init() {
    $('server').textContent = location.host;
    const token = $('token');
    token.value = sessionStorage.getItem(TOKEN_KEY) || '';
    $('token-field').addEventListener('submit', (e) => e.preventDefault());
    token.addEventListener('change', () => {
      sessionStorage.setItem(TOKEN_KEY, token.value);
      loadTables();
    });
    editor.addEventListener('input', () => {
      editor.dataset.example = 'false';
      if (state.mark) {
        clearError();
      }
      renderHighlight();
    });
    editor.addEventListener('scroll', syncScroll);
    editor.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        run();
      } else if (e.key === 'Escape') {
        cancel();
      } else if (e.key === 'Tab' && !e.shiftKey) {
        e.preventDefault();
        insertAtCursor('  ');
      }
    });
    language.addEventListener('change', () => {
      const other = language.value === 'sql' ? 'json' : 'sql';
      state.texts[other] = editor.value;
      editor.value = state.texts[language.value] || '';
      clearError();
      renderHighlight();
    });
    $('run').addEventListener('click', run);
    $('cancel').addEventListener('click', cancel);
    $('history').addEventListener('change', pickHistory);
    $('download').addEventListener('click', download);
    $('show-grid').addEventListener('click', () => setView('grid'));
    $('show-chart').addEventListener('click', () => setView('chart'));
    $('grid-body').addEventListener('scroll', () => window.requestAnimationFrame(drawRows));
    window.addEventListener('resize', () => {
      if (state.chart) {
        state.chart.resize();
      }
      drawRows();
    });
    setRunning(false);
    renderHistory();
    renderHighlight();
    loadTables();
    editor.focus();
    document.body.dataset.ready = 'true';
  }

  init();
}());
