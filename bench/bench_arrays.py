"""The per-model arrays' read, by layout (issue 37: "replace the hand-written reader with a
library's memory-mapped arrays ... if a benchmark before/after shows no loss").

    nice -n 10 python bench/bench_arrays.py --workdir W [--models 1000] [--repeats 3]

One full-size BenCzechMark demo model's arrays (its `.cache/<id>.npz`, 1.65 MB: summaries,
doc ids, gold labels and word counts of 50 tasks) are written `--models` times, each copy a
file of its own, in each layout:

- `npz`: the store's format today, np.savez's zip of uncompressed .npy members, read by the
  hand-written reader (`storage/model_arrays.py`: `_mapped_members` maps the members,
  `read_member` preads one member straight into a caller's array);
- `arrow`: an Arrow IPC file (pyarrow), one record batch of one row with a list column per
  kind, memory-mapped (`pa.memory_map`, `pa.ipc.open_file`) and read zero-copy;
- `npy`: a folder of plain .npy files per model, `np.load(mmap_mode="r")` (np.load cannot
  map a zip's members).

Two reads, each in a fresh process per layout and temperature, the layouts alternating:
`one model` (every array of one model, as copies: what a duel's first touch of a model
reads) and `every model` (the summaries of all `--models` models into one preallocated
matrix: what warming a board or a whole-board replay reads). `cold`: each file's pages
dropped from the page cache (posix_fadvise DONTNEED) before the first call; `warm`: every
file read once before it; each process has made one call on another copy first, so the
first call does not pay the library's own first use. `warm median`: 5 calls after the
first. Peak memory: the process's max RSS over its RSS before the first call (mapped pages
touched count). Figures are medians over `--repeats` processes.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("summaries", "doc_ids", "gold", "words")
LAYOUTS = ("npz", "arrow", "npy")

CHILD = r"""
import json, os, statistics, sys, time
from pathlib import Path
import numpy as np
import pyarrow as pa, pyarrow.ipc
sys.path.insert(0, sys.argv[1])
from leaderboard.storage import model_arrays
workdir, layout, read, cold = Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == "cold"
KINDS = ("summaries", "doc_ids", "gold", "words")
files = sorted((workdir / layout).iterdir(), key=lambda p: int(p.name.split(".")[0]))
stats = [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files]
length = int(np.load(workdir / "npy" / "0" / "summaries.npy", mmap_mode="r").shape[0])

def one_npz(path):
    members = model_arrays._mapped_members(str(path))
    return [np.array(members[k]) for k in KINDS]

def one_arrow(path):
    batch = pa.ipc.open_file(pa.memory_map(str(path))).get_batch(0)
    return [np.array(batch.column(k).values.to_numpy(zero_copy_only=True)) for k in KINDS]

def one_npy(path):
    return [np.array(np.load(path / f"{k}.npy", mmap_mode="r")) for k in KINDS]

def every_npz(out):
    for row, stat in zip(out, stats):
        assert model_arrays.read_member(*stat, "summaries", row)

def every_arrow(out):
    for row, path in zip(out, files):
        row[:] = pa.ipc.open_file(pa.memory_map(str(path))).get_batch(0).column("summaries").values.to_numpy(
            zero_copy_only=True)

def every_npy(out):
    for row, path in zip(out, files):
        row[:] = np.load(path / "summaries.npy", mmap_mode="r")

def set_pages(cold):  # each file's pages dropped from the page cache (cold) or read into it (warm)
    for path in files:
        for f in ([path / f"{k}.npy" for k in KINDS] if path.is_dir() else [path]):
            fd = os.open(f, os.O_RDONLY)
            if cold:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            else:
                while os.read(fd, 1 << 20):
                    pass
            os.close(fd)

def status_kb(field):
    return next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                if line.startswith(field + ":"))

one, every = {"npz": one_npz, "arrow": one_arrow, "npy": one_npy}[layout], {"npz": every_npz, "arrow": every_arrow, "npy": every_npy}[layout]
if read == "one model":
    call, check = (lambda: one(files[0])), (lambda got: [a.sum() for a in got])
else:
    out = np.empty((len(files), length))
    call, check = (lambda: every(out) or out), (lambda got: [got.sum(axis=1)[:3].tolist()])
one(workdir / {"npz": "npz.template", "arrow": "arrow.template", "npy": "npy.template"}[layout])  # the library's first use
set_pages(cold)
Path("/proc/self/clear_refs").write_text("5")  # resets the peak (VmHWM) to the RSS now
before = status_kb("VmRSS")
start = time.perf_counter()
got = call()
first = time.perf_counter() - start
times = []
for _ in range(5):
    start = time.perf_counter()
    call()
    times.append(time.perf_counter() - start)
peak = status_kb("VmHWM") - before
print(json.dumps({"first": first, "warm": statistics.median(times), "peak_mb": peak / 1024,
                  "check": [float(np.sum(c)) for c in check(got)]}))
"""


def build(workdir: Path, models: int) -> None:
    """A full-size demo model's arrays, written `models` times in each layout."""
    sys.path.insert(0, str(ROOT))
    import pyarrow as pa
    import pyarrow.ipc
    from leaderboard.board.configured import build_demo_store
    from leaderboard.storage import model_arrays
    if not (workdir / "store").exists():
        build_demo_store(workdir / "store", 1, seed=0)
    source = next((workdir / "store" / ".cache").glob("*.npz"))
    with np.load(source) as z:
        info, arrays = str(z["info"]), {k: z[k] for k in KINDS}
    for layout in LAYOUTS:
        (workdir / layout).mkdir(parents=True, exist_ok=True)
    table = pa.table({k: pa.array([arrays[k]], type=pa.list_(pa.from_numpy_dtype(arrays[k].dtype))) for k in KINDS})
    table = table.replace_schema_metadata({"info": info})
    arrow = workdir / "arrow.template"
    with pa.ipc.new_file(str(arrow), table.schema) as writer:
        writer.write_table(table)
    shutil.copyfile(source, workdir / "npz.template")
    (workdir / "npy.template").mkdir(exist_ok=True)
    for kind in KINDS:
        np.save(workdir / "npy.template" / f"{kind}.npy", arrays[kind])
    for k in range(models):
        if not (workdir / "npz" / f"{k}.npz").exists():
            shutil.copyfile(source, workdir / "npz" / f"{k}.npz")
            shutil.copyfile(arrow, workdir / "arrow" / f"{k}.arrow")
            (workdir / "npy" / str(k)).mkdir(exist_ok=True)
            for kind in KINDS:
                np.save(workdir / "npy" / str(k) / f"{kind}.npy", arrays[kind])
    assert model_arrays._mapped_members(str(source))["summaries"].shape == arrays["summaries"].shape


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out" / "arrays")
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    build(args.workdir, args.models)
    sizes = {layout: sum(f.stat().st_size for f in (args.workdir / layout).rglob("*") if f.is_file()) / args.models
             for layout in LAYOUTS}
    runs: dict[str, list[dict]] = {}
    for _ in range(args.repeats):
        for read in ("one model", "every model"):
            for temperature in ("cold", "warm"):
                for layout in LAYOUTS:
                    done = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(args.workdir), layout, read,
                                           temperature], capture_output=True, text=True, check=True,
                                          env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
                    runs.setdefault(f"{read}, {temperature}, {layout}", []).append(json.loads(done.stdout))
    checks = {key: {json.dumps(r["check"]) for r in rs} for key, rs in runs.items()}
    results = {key: {"first call (ms)": round(1000 * statistics.median(r["first"] for r in rs), 2),
                     "warm median (ms)": round(1000 * statistics.median(r["warm"] for r in rs), 2),
                     "peak RSS growth (MB)": round(statistics.median(r["peak_mb"] for r in rs), 1)}
               for key, rs in runs.items()}
    print(json.dumps({"bytes per model": sizes, "results": results,
                      "same arrays in every layout": len({c for cs in checks.values() for c in cs}) == 2}, indent=1))


if __name__ == "__main__":
    main()
