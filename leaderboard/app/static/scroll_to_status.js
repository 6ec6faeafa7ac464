(...inputs) => {
  // Before pre-submitting or publishing: the status line into view, where the outcome appears.
  document.getElementById("status")?.scrollIntoView({block: "start", behavior: "instant"});
  return inputs;
}
