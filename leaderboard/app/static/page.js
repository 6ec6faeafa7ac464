(titles) => {
  // Run once on page load, with the tasks' full names by header text. Gradio's Dataframe
  // sets a header's title to its own text; this puts the task's full name there instead
  // (and again whenever Gradio re-renders a header).
  // The pinned Model column starts where the rank column (its width follows the view) ends:
  // the rank header's width, from a ResizeObserver (told after each layout, where measuring
  // on every change to the page forced a layout each time).
  let rankHeader = null;
  const rankWidth = new ResizeObserver(([entry]) => {
    document.getElementById("board")?.style.setProperty("--rank-width", `${entry.borderBoxSize[0].inlineSize}px`);
  });
  const label = () => {
    document.querySelectorAll("th.header-cell").forEach((th) => {
      const title = titles[th.querySelector("span.header")?.textContent.trim()];
      if (title && th.title !== title) th.title = title;
    });
    const rank = document.querySelector("#board thead th");
    if (rank && rank !== rankHeader) {
      if (rankHeader) rankWidth.unobserve(rankHeader);
      rankWidth.observe(rankHeader = rank);
    }
  };
  new MutationObserver(label).observe(document.body, {subtree: true, childList: true,
                                                      attributes: true, attributeFilter: ["title"]});
  label();
}
