"""HTML report size and render time: N records × 2 models with ~1 KB replies (the issue's case: 3,000 × 2).

Run: python benchmarks/bench_html_report.py [--records 3000] [--reply-bytes 1000] [--models 2] [--keep DIR]

Prints the page's size and, when chromium is installed, the time from navigation to the load event and
until the first sample is on screen, and the time one comparison filter takes. The baseline, measured in
the same run, is the text floor: the UTF-8 bytes of every distinct text the page must hold (questions,
references, replies, analyses) written once into a plain page, and that plain page's load time. Replies
are windows of real model replies (tests/corpora), so compression is measured on real text.
"""

from __future__ import annotations

import argparse
import html
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "browser"))

from scoring._pipeline.report_file import collect_results, render_report

SYSTEM = "你是一名严谨的考试助手。请阅读题目，逐步推理，最后以「答案：X」的形式给出选项。"
#: A three-shot prefix (~1.5 KB), the same in every record: what the page should keep once.
FEW_SHOT = [
    (
        f"示例 {k}：下列关于牛顿运动定律的说法，哪一项是正确的？A. 物体不受力时一定静止 B. 力是维持物体运动的原因 "
        "C. 物体的加速度与所受合力成正比，与质量成反比 D. 作用力与反作用力作用在同一物体上",
        "逐项分析：A 错，物体不受力时保持静止或匀速直线运动；B 错，力是改变物体运动状态的原因；C 对，这是牛顿"
        "第二定律的内容 F = ma；D 错，作用力与反作用力作用在两个不同的物体上。Let us double-check: the second "
        f"law states that acceleration is proportional to net force and inversely proportional to mass. 答案：C（{k}）",
    )
    for k in range(1, 4)
]


CORPORA = Path(__file__).resolve().parent.parent / "tests" / "corpora"


def _pool() -> str:
    """Real model replies (GPT-4 on GAOKAO fill-in items, MathVista free-form, LawBench/C-Eval choice
    replies: tests/corpora, sources and licences in their READMEs), one after another: replies are windows
    of this text, so the page compresses as real replies do, not as repeated filler would."""
    replies = []
    for name in ("math/gaokao_gpt4_fill_in.jsonl", "math/mathvista_free_form.jsonl", "choice/adjudicated.jsonl"):
        for line in (CORPORA / name).read_bytes().splitlines():
            reply = orjson.loads(line).get("reply")
            if isinstance(reply, str):
                replies.append(reply)
    return "\n".join(replies)


POOL = _pool()


def _reply(rng: random.Random, size: int, letter: str) -> str:
    """About ``size`` UTF-8 bytes of real reply text, then the answer line."""
    start = rng.randrange(len(POOL) - 4 * size)
    text, used = [], 0
    for ch in POOL[start:]:
        used += len(ch.encode())
        if used > size - 20:
            break
        text.append(ch)
    return "".join(text) + f"\n答案：{letter}"


def records(model: str, n: int, reply_bytes: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        truth = "ABCD"[i % 4]
        letter = truth if rng.random() < (0.7 if model.endswith("a") else 0.6) else rng.choice("ABCD")
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
        for q, a in FEW_SHOT:
            messages += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        messages.append({"role": "user", "content": f"第 {i} 题：物体在光滑水平面上受力 {i % 17} N，问加速度？"
                         " A. 增大 B. 减小 C. 不变 D. 无法确定"})  # fmt: skip
        messages.append(
            {
                "role": "assistant",
                "reference_response": truth,
                "responses": [
                    {
                        "parameters": {"temperature": 0},
                        "model": model,
                        "content": _reply(rng, reply_bytes, letter),
                        "usage": {"prompt_tokens": 200, "completion_tokens": 300, "total_tokens": 500},
                        "score": 1.0 if letter == truth else 0.0,
                        "metric": "choice",
                        "answer": letter,
                        "settled": True,
                        "analysis": f"extracted {letter}, reference {truth}",
                    }
                ],
            }
        )
        out.append({"session_id": i % 1000, "messages": messages, "meta": {"dataset": f"ceval_part_{i // 1000}"}})
    return out


def _distinct_text(files: list[Path]) -> set[str]:
    texts: set[str] = set()
    for path in files:
        for line in path.read_bytes().splitlines():
            record = orjson.loads(line)
            for message in record["messages"]:
                for key in ("content", "reference_response"):
                    if isinstance(message.get(key), str):
                        texts.add(message[key])
                for response in message.get("responses") or []:
                    for key in ("content", "analysis", "answer"):
                        if isinstance(response.get(key), str):
                            texts.add(response[key])
    return texts


def _load(path: Path, selector: str, filter_script: str | None) -> tuple[float, float, float | None]:
    from chromium import Browser, find_chromium

    exe = find_chromium()
    assert exe is not None
    with Browser(exe, width=1400, height=900, load_timeout=180) as browser:
        browser.open(path)
        load = browser.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        deadline = time.monotonic() + 60
        while not browser.evaluate(f"!!document.querySelector({selector!r})"):
            if time.monotonic() > deadline:
                raise RuntimeError("no sample appeared")
            time.sleep(0.01)
        shown = browser.evaluate("performance.now()")
        filtered = browser.evaluate(filter_script) if filter_script else None
    return float(load), float(shown), None if filtered is None else float(filtered)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--reply-bytes", type=int, default=1000)
    parser.add_argument("--keep", type=Path, default=None, help="write the pages into this folder")
    parser.add_argument("--models", type=int, default=2, help="models answering every record (up to 26)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-html-"))
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for seed, model in enumerate(f"model-{letter}" for letter in "abcdefghijklmnopqrstuvwxyz"[: args.models]):
        path = folder / f"{model}.jsonl"
        made = records(model, args.records, args.reply_bytes, seed)
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in made))
        files.append(path)
    start = time.perf_counter()
    collected = collect_results(files, samples=True)
    page = render_report(collected, "html")
    build = time.perf_counter() - start
    out = folder / "report.html"
    out.write_text(page, encoding="utf-8")
    texts = _distinct_text(files)
    floor = folder / "floor.html"
    floor.write_text(
        "<!DOCTYPE html><meta charset=utf-8><body>" + "".join(f"<pre>{html.escape(t)}</pre>" for t in texts),
        encoding="utf-8",
    )
    size, floor_size = out.stat().st_size, floor.stat().st_size
    print(f"{args.records} records × {args.models} models, ~{args.reply_bytes} B replies")
    print(
        f"page: {size / 1e6:.2f} MB (text floor {floor_size / 1e6:.2f} MB, ratio {size / floor_size:.2f}×), "
        f"built in {build:.2f} s"
    )
    from chromium import find_chromium

    if find_chromium() is None:
        print("chromium not installed: no render times (apt-get install -y chromium)")
        return
    script = (
        "(function(){var t=performance.now();var e=document.getElementById('f-agree')||"
        "document.getElementById('f-outcome');e.value=e.options[1].value;e.dispatchEvent(new Event('change'));"
        "return performance.now()-t;})()"
    )
    load, shown, filtered = _load(out, "#samples .sample, #samples .question", script)
    floor_load, _, _ = _load(floor, "pre", None)
    print(f"render: load event {load:.0f} ms, first sample shown {shown:.0f} ms; one filter {filtered:.0f} ms")
    print(f"floor:  load event {floor_load:.0f} ms (ratio {load / floor_load:.2f}×)")


if __name__ == "__main__":
    main()
