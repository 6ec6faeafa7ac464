async () => {
  // After a pre-submission's answer: the status line into view again, now that the outcome
  // below it lets the page scroll that far. The outcome's rows may still be mounting when this
  // runs: until the line is at the top (less its scroll margin, page.css), tried again each
  // frame, for at most a second, unless the page was scrolled elsewhere meanwhile (by the
  // visitor: it is left where it is).
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  const status = document.getElementById("status");
  if (!status) return;
  const margin = parseFloat(getComputedStyle(status).scrollMarginTop) || 0;
  for (let i = 0; i < 60; i++) {
    status.scrollIntoView({block: "start", behavior: "instant"});
    const placed = scrollY;
    if (status.getBoundingClientRect().top <= margin + 2) return;
    await frame();
    if (scrollY !== placed) return;
  }
}
