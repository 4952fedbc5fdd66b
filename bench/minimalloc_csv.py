#!/usr/bin/env python3
"""Converts between MiniMalloc's CSV problems and texmem records files.

usage: bench/minimalloc_csv.py IN.csv OUT.txt            CSV -> records
       bench/minimalloc_csv.py --to-csv IN.txt OUT.csv   records (1-D) -> CSV

MiniMalloc's CSV has a header row naming the columns: the buffer id, the
start and end of its lifespan (end exclusive), its size, and optionally an
alignment and gaps. Records files (docs/records-format.md) have "id first
last size" with last inclusive, so end - 1 becomes last and back. Ids that
are not decimal numbers (MiniMalloc allows any string) are renumbered in file
order; the original id is kept in a comment. Alignments above 1 and gaps have
no place in a records file (texmem's alignment is one value for the whole
plan, --align), so such files are refused rather than silently changed.

The header is matched by name: id|buffer, lower|start|begin, upper|end,
size, alignment, gaps."""
import csv
import sys

ID = ("id", "buffer")
LOWER = ("lower", "start", "begin")
UPPER = ("upper", "end")


def column(header, names, path):
    for i, h in enumerate(header):
        if h.strip().lower() in names:
            return i
    sys.exit(f"{path}: no column named {' or '.join(names)} in the header {header}")


def csv_to_records(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        sys.exit(f"{src}: empty file (a header row is needed)")
    header = rows[0]
    ci, cl, cu = column(header, ID, src), column(header, LOWER, src), column(header, UPPER, src)
    cs = column(header, ("size",), src)
    lower_names = [h.strip().lower() for h in header]
    ca = lower_names.index("alignment") if "alignment" in lower_names else None
    cg = lower_names.index("gaps") if "gaps" in lower_names else None
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        try:
            lo, up, size = int(row[cl]), int(row[cu]), int(row[cs])
        except (ValueError, IndexError):
            sys.exit(f"{src}:{n}: lower, upper and size must be integers: {row}")
        if lo < 0 or size < 0 or up <= lo:
            sys.exit(f"{src}:{n}: need 0 <= lower < upper and size >= 0: {row}")
        if ca is not None and ca < len(row) and row[ca].strip() and int(row[ca]) > 1:
            sys.exit(f"{src}:{n}: alignment {row[ca]} has no place in a records file")
        if cg is not None and cg < len(row) and row[cg].strip():
            sys.exit(f"{src}:{n}: gaps have no place in a records file")
        bid = row[ci].strip()
        out.append((bid, lo, up - 1, size))
    numeric = all(b.isdigit() for b, _, _, _ in out) and len({b for b, *_ in out}) == len(out)
    with open(dst, "w") as o:
        o.write(f"# converted from {src} by bench/minimalloc_csv.py (end exclusive -> last inclusive)\n")
        for k, (bid, first, last, size) in enumerate(out):
            if numeric:
                o.write(f"{bid} {first} {last} {size}\n")
            else:
                o.write(f"{k} {first} {last} {size}   # {bid}\n")
    return len(out)


def records_to_csv(src, dst):
    rows = []
    with open(src) as f:
        for n, line in enumerate(f, start=1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) != 4:
                sys.exit(f"{src}:{n}: only 1-D records (id first last size) convert to CSV")
            bid, first, last, size = (int(x) for x in line)
            rows.append((bid, first, last + 1, size))
    with open(dst, "w") as o:
        o.write("id,lower,upper,size\n")
        for bid, lo, up, size in rows:
            o.write(f"{bid},{lo},{up},{size}\n")
    return len(rows)


def main(argv):
    if len(argv) == 4 and argv[1] == "--to-csv":
        n = records_to_csv(argv[2], argv[3])
    elif len(argv) == 3 and not argv[1].startswith("-"):
        n = csv_to_records(argv[1], argv[2])
    else:
        sys.exit(__doc__)
    print(f"{n} buffers")


if __name__ == "__main__":
    main(sys.argv)
