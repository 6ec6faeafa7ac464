(header, message) => {
  // Run once on page load. When the server refuses an event because it let go of this page's
  // session (leaderboard/app/sessions.py: the page was away long), say so at the top of the
  // page with a button to reload it: Gradio's page shows the refusal's message for a queued
  // event only, and for an event outside its queue marks the outputs "Error" without it.
  // Gradio's client calls the global fetch for each event, so a wrapper sees every answer.
  const fetchBefore = window.fetch;
  let notice = null;
  window.fetch = async (...args) => {
    const answer = await fetchBefore(...args);
    if (answer.status === 410 && answer.headers.get(header) && !notice) {
      notice = Object.assign(document.createElement("div"), {id: "session-let-go", role: "alert"});
      const reload = Object.assign(document.createElement("button"), {textContent: "Reload the page"});
      reload.addEventListener("click", () => location.reload());
      notice.append(Object.assign(document.createElement("span"), {textContent: message}), reload);
      document.body.appendChild(notice);
    }
    return answer;
  };
}
