"""The leaderboard by role, the API the command line and the web app use.

- `state`: `Leaderboard`, the reading role: loading the store, refreshing and polling, and
  what the board shows (rankings, duels, certainty, references, the sample file); its
  state one frozen `BoardState`, read-only, replaced in one assignment (`install`). The two
  writing roles are its neighbours, built beside it (`Publishing(board)`, ...) by whoever
  writes (`configured`, the command line, the app's Submit tab):
- `publishing` (`Publishing`): pre-submission and publication;
- `administration` (`Administration`): remove, flag, unflag, rebuild, migrate, check, export;
- `writing`: the write path both share (duel files, one-commit rewrites);
- `reader`: what the writing roles may use of the board (`BoardReader`: its state, read-only,
  `refresh`, and `install`, the one call that changes it), so they import no `Leaderboard`;
- `configured`: the store and board the environment configures, and the demo store (`build_demo_store`).
"""
