"""The leaderboard by role, the API the command line and the web app use.

- `state`: `Leaderboard`, the reading role: loading the store, refreshing and polling, and
  what the board shows (rankings, duels, certainty, references, the sample file); its
  state one frozen `BoardState`, replaced in one assignment. It holds the two writing roles:
- `publishing` (`board.publishing`): pre-submission and publication;
- `administration` (`board.admin`): remove, flag, unflag, rebuild, migrate, check, export;
- `writing`: the write path both share (duel files, one-commit rewrites);
- `reader`: what the writing roles may use of the board (`BoardReader`: its state, read-only,
  and the calls that replace it), so they import no `Leaderboard`;
- `configured`: the store and board the environment configures, and the demo store (`build_demo_store`).
"""
