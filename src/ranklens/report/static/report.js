(function(){
  "use strict";
  function cellValue(td){
    var v = td.getAttribute("data-v"); if (v === null) v = td.textContent;
    var n = parseFloat(v); return (v !== "" && !isNaN(n) && isFinite(v)) ? n : v.toLowerCase();
  }
  function sortTable(th){
    var table = th.closest("table"), tbody = table.tBodies[0];
    var idx = Array.prototype.indexOf.call(th.parentNode.children, th);
    var asc = !th.classList.contains("sorted-asc");
    Array.prototype.forEach.call(th.parentNode.children, function(h){ h.classList.remove("sorted-asc","sorted-desc"); });
    th.classList.add(asc ? "sorted-asc" : "sorted-desc");
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function(a, b){
      var x = cellValue(a.cells[idx]), y = cellValue(b.cells[idx]);
      if (typeof x === typeof y) { return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1); }
      return (typeof x === "number" ? -1 : 1) * (asc ? 1 : -1);
    });
    rows.forEach(function(r){ tbody.appendChild(r); });
  }
  function filterModel(select){
    var table = document.getElementById(select.getAttribute("data-table"));
    var col = parseInt(select.getAttribute("data-col"), 10), want = select.value;
    Array.prototype.forEach.call(table.tBodies[0].rows, function(r){
      r.style.display = (want === "" || r.cells[col].textContent === want) ? "" : "none";
    });
  }
  document.addEventListener("click", function(e){
    var th = e.target.closest ? e.target.closest("table.sortable th") : null;
    if (th) sortTable(th);
  });
  document.addEventListener("change", function(e){
    if (e.target.classList && e.target.classList.contains("model-filter")) filterModel(e.target);
  });
  window.ranklensReport = {sortTable: sortTable, filterModel: filterModel};
})();
