(function(){
  "use strict";
  var each = function(list, fn){ Array.prototype.forEach.call(list, fn); };

  // ------------------------------------------------------------ tables: sort, filter, pages
  function cellValue(td){
    var v = td.getAttribute("data-v"); if (v === null) v = td.textContent;
    var n = parseFloat(v); return (v !== "" && !isNaN(n) && isFinite(v)) ? n : v.toLowerCase();
  }
  function refresh(table){
    var col = parseInt(table.getAttribute("data-model-col") || "-1", 10);
    var want = table.getAttribute("data-filter") || "";
    var size = parseInt(table.getAttribute("data-page") || "0", 10);
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var match = rows.filter(function(r){ return want === "" || col < 0 || r.cells[col].textContent === want; });
    var pages = size > 0 ? Math.max(1, Math.ceil(match.length / size)) : 1;
    var page = Math.min(parseInt(table.getAttribute("data-at") || "0", 10), pages - 1);
    table.setAttribute("data-at", String(page));
    each(rows, function(r){ r.style.display = "none"; });
    match.forEach(function(r, i){
      if (size <= 0 || (i >= page * size && i < (page + 1) * size)) r.style.display = "";
    });
    var pager = table.parentNode.nextElementSibling;
    if (pager && pager.classList.contains("pager")) {
      pager.querySelector(".where").textContent = "page " + (page + 1) + " of " + pages + " (" + match.length + " rows)";
      pager.querySelector(".prev").disabled = page === 0;
      pager.querySelector(".next").disabled = page >= pages - 1;
    }
  }
  function sortTable(th){
    var table = th.closest("table"), tbody = table.tBodies[0];
    var idx = Array.prototype.indexOf.call(th.parentNode.children, th);
    var asc = !th.classList.contains("sorted-asc");
    each(th.parentNode.children, function(h){ h.classList.remove("sorted-asc", "sorted-desc"); });
    th.classList.add(asc ? "sorted-asc" : "sorted-desc");
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function(a, b){
      var x = cellValue(a.cells[idx]), y = cellValue(b.cells[idx]);
      if (typeof x === typeof y) { return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1); }
      return (typeof x === "number" ? -1 : 1) * (asc ? 1 : -1);
    });
    rows.forEach(function(r){ tbody.appendChild(r); });
    table.setAttribute("data-at", "0");
    refresh(table);
  }
  function filterModel(scope, want){
    each(scope.querySelectorAll("table.sortable[data-model-col]"), function(t){
      t.setAttribute("data-filter", want); t.setAttribute("data-at", "0"); refresh(t);
    });
    var select = scope.querySelector("select.section-filter");
    var models = select ? Array.prototype.map.call(select.options, function(o){ return o.value; }).filter(Boolean) : [];
    // wide tables (one column per model): hide the other models' columns
    each(scope.querySelectorAll("table.sortable:not([data-model-col])"), function(t){
      var heads = t.tHead ? t.tHead.rows[0].cells : [];
      var hide = [];
      each(heads, function(h, i){ if (want !== "" && models.indexOf(h.textContent) >= 0 && h.textContent !== want) hide.push(i); });
      each(t.rows, function(r){ each(r.cells, function(c, i){ c.style.display = hide.indexOf(i) >= 0 ? "none" : ""; }); });
    });
    // findings about one model ("minilm: ...", "minilm vs bm25: ...", "minilm (setting) ...")
    each(scope.querySelectorAll(".findings li"), function(li){
      var label = li.querySelector(".flabel");
      var text = li.textContent.slice(label ? label.textContent.length : 0).trim();
      var about = models.filter(function(m){ return [":", " vs ", " ("].some(function(sep){ return text.indexOf(m + sep) === 0; }); });
      li.style.display = (want === "" || about.length === 0 || about.indexOf(want) >= 0) ? "" : "none";
    });
  }
  function addPager(table){
    var div = document.createElement("div");
    div.className = "pager";
    div.innerHTML = '<button type="button" class="prev">‹ previous</button><span class="where"></span>' +
                    '<button type="button" class="next">next ›</button>';
    table.parentNode.parentNode.insertBefore(div, table.parentNode.nextSibling);
    div.querySelector(".prev").addEventListener("click", function(){
      table.setAttribute("data-at", String(Math.max(0, parseInt(table.getAttribute("data-at") || "0", 10) - 1))); refresh(table);
    });
    div.querySelector(".next").addEventListener("click", function(){
      table.setAttribute("data-at", String(parseInt(table.getAttribute("data-at") || "0", 10) + 1)); refresh(table);
    });
  }
  function download(a){
    var src = document.getElementById(a.getAttribute("data-src"));
    var blob = new Blob([JSON.parse(src.textContent)], {type: "text/tab-separated-values"});
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob); link.download = a.getAttribute("data-name");
    document.body.appendChild(link); link.click(); link.remove();
  }

  // ------------------------------------------------------------ rationales: one query a page
  function paginateRationales(box){
    var queries = Array.prototype.slice.call(box.querySelectorAll(".rl-explain-query"));
    if (queries.length === 0) return;
    var labels = queries.map(function(q){
      var g = q.previousElementSibling; while (g && !g.classList.contains("rl-explain-group")) g = g.previousElementSibling;
      var b = q.querySelector("b");
      return (g ? g.textContent + " · " : "") + (b ? b.textContent : q.id);
    });
    each(box.querySelectorAll(".rl-explain-group, .rl-explain-index"), function(e){ e.style.display = "none"; });
    queries.forEach(function(q){
      var docs = q.querySelectorAll(".rl-explain-doc");
      if (docs.length > 2) {
        var hidden = Array.prototype.slice.call(docs, 2);
        hidden.forEach(function(d){ d.style.display = "none"; });
        var btn = document.createElement("button");
        btn.type = "button"; btn.className = "rl-more";
        btn.textContent = "show " + hidden.length + " more document" + (hidden.length > 1 ? "s" : "");
        btn.addEventListener("click", function(){ hidden.forEach(function(d){ d.style.display = ""; }); btn.remove(); });
        q.appendChild(btn);
      }
    });
    var bar = document.createElement("div");
    bar.className = "rl-pager";
    var opts = labels.map(function(l, i){
      var o = document.createElement("option"); o.value = String(i); o.textContent = l; return o.outerHTML;
    }).join("");
    bar.innerHTML = '<button type="button" class="prev">‹ previous query</button><select class="rl-query-list">' +
                    opts + '</select><button type="button" class="next">next query ›</button><span class="where note"></span>';
    var first = queries[0];
    first.parentNode.insertBefore(bar, first.previousElementSibling && first.previousElementSibling.classList.contains("rl-explain-group") ? first.previousElementSibling : first);
    var select = bar.querySelector("select");
    function show(i){
      i = Math.max(0, Math.min(queries.length - 1, i));
      queries.forEach(function(q, j){ q.style.display = j === i ? "" : "none"; });
      select.value = String(i);
      bar.querySelector(".where").textContent = "query " + (i + 1) + " of " + queries.length;
      bar.querySelector(".prev").disabled = i === 0;
      bar.querySelector(".next").disabled = i === queries.length - 1;
    }
    bar.querySelector(".prev").addEventListener("click", function(){ show(parseInt(select.value, 10) - 1); });
    bar.querySelector(".next").addEventListener("click", function(){ show(parseInt(select.value, 10) + 1); });
    select.addEventListener("change", function(){ show(parseInt(select.value, 10)); });
    box.setAttribute("data-paginated", String(queries.length));
    box.rlShow = function(id){ var i = queries.findIndex(function(q){ return q.id === id; }); if (i >= 0) show(i); };
    show(0);
  }

  // ------------------------------------------------------------ contents that follow the page
  function followToc(){
    var links = {};
    each(document.querySelectorAll("nav.toc a"), function(a){ links[a.getAttribute("href").slice(1)] = a; });
    var targets = Object.keys(links).map(function(id){ return document.getElementById(id); }).filter(Boolean);
    function update(){
      var current = null;
      targets.forEach(function(t){ if (t.getBoundingClientRect().top < 120) current = t; });
      each(document.querySelectorAll("nav.toc a.active"), function(a){ a.classList.remove("active"); });
      if (current) {
        links[current.id].classList.add("active");
        var sec = current.closest("section.analysis");
        if (sec && sec.id !== current.id && links[sec.id]) links[sec.id].classList.add("active");
        var nav = document.querySelector("nav.toc"), a = links[current.id];
        if (a.offsetTop < nav.scrollTop || a.offsetTop > nav.scrollTop + nav.clientHeight - 40) {
          nav.scrollTop = Math.max(0, a.offsetTop - nav.clientHeight / 2);  // the nav only, never the page
        }
      }
    }
    window.addEventListener("scroll", update, {passive: true});
    update();
  }

  document.addEventListener("click", function(e){
    var th = e.target.closest ? e.target.closest("table.sortable th") : null;
    if (th) { sortTable(th); return; }
    var a = e.target.closest ? e.target.closest("a.tsv") : null;
    if (a) { e.preventDefault(); download(a); return; }
    var q = e.target.closest ? e.target.closest("a[href^='#rl-q-']") : null;
    if (q) {
      var box = q.closest(".rl-explain-docs");
      if (box && box.rlShow) box.rlShow(q.getAttribute("href").slice(1));
    }
  });
  document.addEventListener("change", function(e){
    if (e.target.classList && e.target.classList.contains("section-filter")) {
      filterModel(e.target.closest("section.analysis"), e.target.value);
    }
  });
  each(document.querySelectorAll("table.sortable[data-page]"), function(t){ addPager(t); refresh(t); });
  each(document.querySelectorAll(".rl-explain-docs"), paginateRationales);
  followToc();
  window.ranklensReport = {sortTable: sortTable, filterModel: filterModel, refresh: refresh};
})();
