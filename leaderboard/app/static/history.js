() => {
  // Run once on page load. Back and Forward, and a link to a view of this page (a model's name:
  // "?tab=details&model=..."), show that view in the page: the address changes (a link's pushes
  // a history entry), and the hidden #visited button asks the server for the view it names.
  const show = () => document.getElementById("visited")?.click();
  addEventListener("popstate", show);
  document.addEventListener("click", (event) => {
    const link = event.target.closest?.("a[href^='?']");
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;  // a new tab as asked
    event.preventDefault();
    event.stopPropagation();
    history.pushState(null, "", link.getAttribute("href"));
    scrollTo({top: 0});
    show();
  }, true);
}
