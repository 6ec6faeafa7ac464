(titles) => {
  // Run once on page load, with the tasks' full names by header text. Gradio's Dataframe
  // sets a header's title to its own text; this puts the task's full name there instead
  // (and again whenever Gradio re-renders a header).
  const label = () => {
    document.querySelectorAll("th.header-cell").forEach((th) => {
      const title = titles[th.querySelector("span.header")?.textContent.trim()];
      if (title && th.title !== title) th.title = title;
    });
    // The pinned Model column starts where the rank column (its width follows the view) ends.
    const board = document.getElementById("board"), rank = board?.querySelector("thead th");
    if (rank) board.style.setProperty("--rank-width", `${rank.getBoundingClientRect().width}px`);
  };
  new MutationObserver(label).observe(document.body, {subtree: true, childList: true,
                                                      attributes: true, attributeFilter: ["title"]});
  label();
}
