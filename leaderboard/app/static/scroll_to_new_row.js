async (index) => {
  // After a pre-submission, bring the new model's row (★) into view. The preview's rows are
  // rendered virtually: jump to where the row (position `index`) should be by the rendered
  // rows' height, then step until it is rendered and centre it.
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  const viewport = document.querySelector("#preview .virtual-table-viewport");
  let jumped = false;
  for (let i = 0; viewport && index !== null && i < 300; i++) {
    const rows = [...viewport.querySelectorAll("div[role=row]")];
    const row = rows.find((r) => r.textContent.includes("★"));
    if (row) {
      row.scrollIntoView({block: "center", behavior: "instant"});
      break;
    }
    if (rows.length && !jumped) {
      viewport.scrollTop = Math.max(0, index * rows[0].getBoundingClientRect().height - viewport.clientHeight / 2);
      jumped = true;
    } else if (rows.length) {
      viewport.scrollTop += viewport.clientHeight / 2;
    }
    await frame();
  }
}
