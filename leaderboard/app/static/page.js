(titles) => {
  // Run once on page load, with each column's explanation by header text. Gradio's Dataframe
  // sets a header's title to its own text; this puts the explanation there instead
  // (and again whenever Gradio re-renders a header). The Leaderboard's table has its titles
  // from the server (views/board_html.py).
  const label = () => {
    document.querySelectorAll("th.header-cell").forEach((th) => {
      const title = titles[th.querySelector("span.header")?.textContent.trim()];
      if (title && th.title !== title) th.title = title;
    });
  };
  // The explanation a header's title holds, shown on a click or tap too (a phone shows no title):
  // under the header, until the next click elsewhere. A scroll moves it with its header rather
  // than hiding it: the page scrolls by itself too (a table re-rendered by a late answer), and
  // hiding it then took the explanation away from under the visitor's tap.
  const help = Object.assign(document.createElement("div"), {id: "column-help", hidden: true, role: "tooltip"});
  document.body.appendChild(help);
  let anchor = null;  // the header explained, and where it was: {th, name, table}
  const headerName = (th) => th.querySelector("span.header")?.textContent.trim();
  const place = () => {
    if (!anchor.th.isConnected) {  // the table re-rendered its header: the same column's new one
      anchor.th = [...document.querySelectorAll(`#${anchor.table} th.header-cell`)]
        .find((th) => headerName(th) === anchor.name) ?? anchor.th;
    }
    const box = anchor.th.getBoundingClientRect();
    if (!anchor.th.isConnected || box.bottom < 0 || box.top > innerHeight) {
      help.hidden = true;
      return;
    }
    help.hidden = false;
    help.style.top = `${box.bottom + 4}px`;
    help.style.left = `${Math.max(4, Math.min(box.left, innerWidth - help.offsetWidth - 4))}px`;
  };
  document.addEventListener("click", (event) => {
    const th = event.target.closest?.("th.header-cell");
    if (!th || !th.title || event.target.closest(".cell-menu-button")) {
      help.hidden = true;
      anchor = null;
      return;
    }
    anchor = {th, name: headerName(th), table: th.closest("[id]")?.id};
    help.textContent = `${anchor.name}: ${th.title}`;
    place();
  }, true);
  addEventListener("scroll", () => { if (anchor) place(); }, true);
  new MutationObserver(label).observe(document.body, {subtree: true, childList: true,
                                                      attributes: true, attributeFilter: ["title"]});
  label();
}
