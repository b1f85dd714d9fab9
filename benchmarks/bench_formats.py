"""Reading speed of formatkit against the plain parsers it is built on, and its cold start.

    python benchmarks/bench_formats.py             # 100,000 rows (data generated once, then reused)
    python benchmarks/bench_formats.py --quick     # 10,000 rows
    python benchmarks/bench_formats.py --rows N

Data goes to benchmarks/data/ (git-ignored): an .xlsx laid out as Excel writes it (shared strings) and a
jsonl of the same records, realistic rows of Chinese text of about 1.5 KB with the seed's parameters cell.
Every measurement runs in a fresh subprocess that reports its own time and peak RSS, so peaks don't mix.

Targets: Excel → validated canonical jsonl at ≥ 60 % of the fastest plain Excel read; jsonl → canonical at
≥ 50 % of parsing every line with orjson; `formatkit validate` on a two-row file in < 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

HERE = Path(__file__).parent
DATA = HERE / "data"
PARAMS = (
    "{'logprobs': False, 'top_logprobs': 10, 'frequency_penalty': 0.0, 'temperature': 1.0, "
    "'top_p': 0.7, 'max_tokens': 4096, 'stop': []}"
)
HEADER = ["session_id", "system_prompt", "query", "reference_response", "parameters", "response"]
SYSTEMS = [
    "你是一名精通各大中餐菜系的中餐传奇大厨",
    "你是一个精通中国历史和文化的段子手,擅长通过幽默的表达方式让人发笑。",
    "请完成下面的计算题",
    "你是一名耐心的小学数学老师,请一步一步地讲解。",
]
PHRASES = [
    "锅中倒入适量食用油,油热后倒入蛋液,",
    "待蛋液凝固,用铲子快速翻炒成小块盛出。",
    "西红柿洗净后在顶部划十字花刀,",
    "放入开水中烫一会儿,去皮后切成小块。",
    "这道菜色泽鲜艳,味道酸甜可口,非常下饭。",
    "根据口味加入适量盐调味,",
    "然后再大火收汁,使汤汁浓稠即可。",
    "程序员写了个bug,把公司数据库给误删除了,",
    "老板在大会上激情演讲:“996 是福报啊!”",
    "请计算 3 + 5 × 2 的结果,并说明运算顺序。",
    "已知三角形的两边分别为 3 和 4,求第三边的取值范围。",
    "Explain the difference between a list and a tuple in Python. ",
]


# --- data ------------------------------------------------------------------------------------------------


def _text(rng: random.Random, size: int) -> str:
    """Stock phrases mixed with random CJK characters, so the text compresses about as real text does."""
    parts: list[str] = []
    length = 0
    while length < size:
        part = (
            rng.choice(PHRASES)
            if rng.random() < 0.5
            else "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(rng.randrange(4, 16))) + "。"
        )
        parts.append(part)
        length += len(part)
    return "".join(parts)


def make_rows(n: int) -> list[list[Any]]:
    """n single-turn records of about 1.5 KB (UTF-8) each."""
    rng = random.Random(20240101)
    return [[i, rng.choice(SYSTEMS), _text(rng, 120), _text(rng, 330), PARAMS, None] for i in range(n)]


def write_xlsx(path: Path, rows: list[list[Any]]) -> None:
    """A workbook laid out as Excel saves it: text in sharedStrings.xml, numbers inline."""
    strings: dict[str, int] = {}

    def ref(text: str) -> int:
        index = strings.get(text)
        if index is None:
            index = strings[text] = len(strings)
        return index

    def column(j: int) -> str:
        return "ABCDEFGHIJ"[j]

    sheet: list[str] = [
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f'<dimension ref="A1:F{len(rows) + 1}"/><sheetData>'
    ]
    for r, row in enumerate([HEADER, *rows], start=1):
        cells = []
        for j, value in enumerate(row):
            if value is None:
                continue
            if isinstance(value, (int, float)):
                cells.append(f'<c r="{column(j)}{r}"><v>{value}</v></c>')
            else:
                cells.append(f'<c r="{column(j)}{r}" t="s"><v>{ref(value)}</v></c>')
        sheet.append(f'<row r="{r}">{"".join(cells)}</row>')
    sheet.append("</sheetData></worksheet>")
    shared = [
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        f'count="{len(strings)}" uniqueCount="{len(strings)}">'
    ]
    shared.extend(f"<si><t>{escape(text)}</t></si>" for text in strings)
    shared.append("</sst>")
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    parts = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName='
            '"/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.'
            'main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlfor'
            'mats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            "</Types>"
        ),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
        ),
        "xl/workbook.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{main}" xmlns:r="{rel}"><sheets>'
            '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
        ),
        "xl/_rels/workbook.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            f'package/2006/relationships"><Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/'
            f'sheet1.xml"/><Relationship Id="rId2" Type="{rel}/sharedStrings" Target="sharedStrings.xml"/>'
            "</Relationships>"
        ),
        "xl/worksheets/sheet1.xml": "".join(sheet),
        "xl/sharedStrings.xml": "".join(shared),
    }
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, body in parts.items():
            archive.writestr(name, body.encode("utf-8"))
    tmp.replace(path)


def write_jsonl(path: Path, rows: list[list[Any]]) -> None:
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for _sid, system, query, answer, _params, _ in rows:
            line = {
                "system": system,
                "prompt": query,
                "answer": answer,
                "parameters": {
                    "logprobs": False,
                    "top_logprobs": 10,
                    "frequency_penalty": 0.0,
                    "temperature": 1.0,
                    "top_p": 0.7,
                    "max_tokens": 4096,
                    "stop": [],
                },
            }
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    tmp.replace(path)


def ensure_data(n: int) -> tuple[Path, Path, Path]:
    DATA.mkdir(parents=True, exist_ok=True)
    xlsx, jsonl, small = DATA / f"bench_{n}.xlsx", DATA / f"bench_{n}.jsonl", DATA / "two_rows.xlsx"
    if not (xlsx.exists() and jsonl.exists() and small.exists()):
        started = time.perf_counter()
        rows = make_rows(n)
        write_xlsx(xlsx, rows)
        write_jsonl(jsonl, rows)
        write_xlsx(small, rows[:2])
        print(f"generated {n:,} rows in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return xlsx, jsonl, small


# --- measurements (each runs in its own process) ---------------------------------------------------------


def _calamine(path: str) -> int:
    from python_calamine import CalamineWorkbook

    rows = CalamineWorkbook.from_path(path).get_sheet_by_index(0).to_python()
    return len(rows) - 1


def _openpyxl(path: str) -> int:
    import openpyxl

    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    count = sum(1 for _ in workbook.worksheets[0].iter_rows(values_only=True))
    workbook.close()
    return count - 1


def _orjson(path: str) -> int:
    import orjson

    count = 0
    with open(path, "rb") as handle:
        for line in handle:
            orjson.loads(line)
            count += 1
    return count


def _formatkit(path: str) -> int:
    from formatkit._api.conversion import convert

    with tempfile.TemporaryDirectory() as folder:
        report = convert([path], Path(folder) / "out.jsonl", profile="none")
    if not report.valid:
        raise SystemExit(f"benchmark data is invalid: {report.all_issues()[:3]}")
    return report.files[0].records


def _validate(path: str) -> int:
    """Validation alone (records built, nothing serialised): shows what writing the jsonl costs."""
    from formatkit._api.validate import validate_file

    return validate_file(path, profile="none").records


MEASURES = {
    "calamine": _calamine,
    "openpyxl": _openpyxl,
    "orjson": _orjson,
    "formatkit": _formatkit,
    "validate": _validate,
}
#: Imported before the clock starts: import time is the cold start's business, measured on its own.
IMPORTS = {
    "calamine": ["python_calamine"],
    "openpyxl": ["openpyxl"],
    "orjson": ["orjson"],
    "formatkit": [
        "formatkit._api.conversion",
        "formatkit._drivers.excel",
        "formatkit._drivers.jsonl",
        "python_calamine",
    ],
    "validate": ["formatkit._api.validate", "formatkit._drivers.excel", "formatkit._drivers.jsonl", "python_calamine"],
}


def _peak_mib() -> float:
    """This process's peak RSS. Linux's VmHWM starts afresh at exec; ru_maxrss would carry the parent's."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(name: str, path: str) -> None:
    import importlib

    for module in IMPORTS[name]:
        importlib.import_module(module)
    started = time.perf_counter()
    cpu = time.process_time()
    rows = MEASURES[name](path)
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    print(json.dumps({"rows": rows, "seconds": seconds, "cpu": cpu, "peak_mib": _peak_mib()}))


def measure(name: str, path: Path, repeat: int) -> dict[str, float]:
    """The best of ``repeat`` fresh processes (the least disturbed by whatever else the machine runs)."""
    best: dict[str, float] | None = None
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--child", name, str(path)], check=True, capture_output=True, text=True
        )
        result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    assert best is not None
    best["rows_per_s"] = best["rows"] / best["seconds"]
    return best


def cold_start(small: Path, runs: int = 5) -> float:
    script = Path(sys.executable).parent / "formatkit"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "formatkit.cli"]
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([*command, "validate", str(small)], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _line(label: str, result: dict[str, float], baseline: dict[str, float] | None = None) -> str:
    ratio = f"  {result['rows_per_s'] / baseline['rows_per_s']:6.0%} of {baseline['label']}" if baseline else ""
    return (
        f"  {label:<30} {result['rows_per_s']:>9,.0f} rows/s  {result['seconds']:6.2f} s "
        f"(cpu {result['cpu']:5.2f} s)  peak {result['peak_mib']:6.0f} MiB{ratio}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="10,000 rows")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the best counts")
    parser.add_argument("--skip-openpyxl", action="store_true", help="leave out the slowest baseline")
    parser.add_argument("--child", nargs=2, metavar=("MEASURE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    n = 10_000 if args.quick else args.rows
    xlsx, jsonl, small = ensure_data(n)
    print(
        f"{n:,} rows; xlsx {xlsx.stat().st_size / 1e6:.1f} MB, jsonl {jsonl.stat().st_size / 1e6:.1f} MB "
        f"(Python {sys.version.split()[0]}, {os.cpu_count()} CPUs)"
    )

    print("Excel → validated canonical jsonl")
    baselines = {"calamine": measure("calamine", xlsx, args.repeat)}
    if not args.skip_openpyxl:
        baselines["openpyxl"] = measure("openpyxl", xlsx, 1)
    for name, result in baselines.items():
        result["label"] = name  # type: ignore[assignment]
        print(_line(f"baseline: {name} plain read", result))
    fastest = max(baselines.values(), key=lambda r: r["rows_per_s"])
    excel = measure("formatkit", xlsx, args.repeat)
    print(_line("formatkit validate only", measure("validate", xlsx, args.repeat), fastest))
    print(_line("formatkit convert", excel, fastest))
    excel_ratio = excel["rows_per_s"] / fastest["rows_per_s"]

    print("jsonl → validated canonical jsonl")
    base = measure("orjson", jsonl, args.repeat)
    base["label"] = "orjson"  # type: ignore[assignment]
    print(_line("baseline: orjson every line", base))
    lines = measure("formatkit", jsonl, args.repeat)
    print(_line("formatkit validate only", measure("validate", jsonl, args.repeat), base))
    print(_line("formatkit convert", lines, base))
    jsonl_ratio = lines["rows_per_s"] / base["rows_per_s"]

    start = cold_start(small)
    print(f"cold start: formatkit validate on a two-row .xlsx: {start:.3f} s (median of 5)")
    print()
    print(
        f"targets: Excel {excel_ratio:.0%} (≥ 60 %) {'ok' if excel_ratio >= 0.6 else 'MISSED'}; "
        f"jsonl {jsonl_ratio:.0%} (≥ 50 %) {'ok' if jsonl_ratio >= 0.5 else 'MISSED'}; "
        f"cold start {start:.2f} s (< 0.5 s) {'ok' if start < 0.5 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
